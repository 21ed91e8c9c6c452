// Builders for InCore kernels over 2-D tiles, shared by the tests of
// InitMemRef, MemoryReuse and AllocateMemoryAddr.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::test {

inline ExprPtr Tuple(const std::vector<int64_t>& values) { return MakeTuple::Make(Ints(values)); }

inline CallPtr Op(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs));
}

inline Attrs Target(MemorySpace space) {
  Attrs kwargs;
  kwargs.Set("target_memory", EnumAttr::Of(space));
  return kwargs;
}

inline VarPtr TensorParam(const std::string& name, const std::vector<int64_t>& shape,
                          DataType dtype = DataType::FP32) {
  return Var::Make(name, TensorType::Make(shape, dtype));
}

inline CallPtr Load(const VarPtr& tensor, const std::vector<int64_t>& shape, MemorySpace space = MemorySpace::Vec) {
  return Op("tile.load", {tensor, Tuple(std::vector<int64_t>(shape.size(), 0)), Tuple(shape)}, Target(space));
}

inline CallPtr Store(const ExprPtr& tile, const VarPtr& tensor) {
  size_t rank = As<TileType>(tile->type)->rank();
  return Op("tile.store", {tile, Tuple(std::vector<int64_t>(rank, 0)), tensor});
}

// `name = value`, with the variable typed as the value.
inline VarPtr Def(std::vector<StmtPtr>& body, const std::string& name, const ExprPtr& value, Span span = Span()) {
  auto var = Var::Make(name, value->type, span);
  body.push_back(AssignStmt::Make(var, value, span));
  return var;
}

inline FunctionPtr Kernel(const std::string& name, std::vector<VarPtr> params, std::vector<StmtPtr> body,
                          std::vector<TypePtr> returns = {}) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::In);
  if (!directions.empty()) directions.back() = ParamDirection::Out;
  return Function::Make(name, FunctionType::InCore, std::move(params), std::move(directions), std::move(returns),
                        SeqStmts::Make(std::move(body)));
}

inline ProgramPtr ProgramWith(std::vector<FunctionPtr> functions) { return Program::Make("test", std::move(functions)); }

// Type checking on as well as the structural rules: every op here is registered.
inline std::string FullVerifierErrors(const ProgramPtr& program) {
  std::string errors;
  for (const auto& d : Verify(program)) {
    if (d.severity == Diagnostic::Severity::kError) errors += d.ToString() + "\n";
  }
  return errors;
}

template <class PassT>
ProgramPtr RunPass(const ProgramPtr& program, pass::PassContext& ctx) {
  EXPECT_EQ(FullVerifierErrors(program), "");
  PassT pass;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_EQ(FullVerifierErrors(out), "");
  return out;
}

template <class PassT>
ProgramPtr RunPass(const ProgramPtr& program) {
  pass::PassContext ctx;
  return RunPass<PassT>(program, ctx);
}

// The error running the pass raises.
template <class PassT>
Error PassError(const ProgramPtr& program, pass::PassContext& ctx) {
  PassT pass;
  try {
    pass.Run(program, ctx);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << PassT::kName << " accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}

template <class PassT>
Error PassError(const ProgramPtr& program) {
  pass::PassContext ctx;
  return PassError<PassT>(program, ctx);
}

}  // namespace pypto::test
