// Shared by the pass tests: short builders for IR and
// checks of the programs the passes produce.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "pypto/ir/printer.h"
#include "pypto/ir/structural.h"
#include "pypto/ir/verifier.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/pass.h"
#include "pypto/support/error.h"
#include "support/verifier_errors.h"

namespace pypto::test {

using namespace pypto::ir;  // NOLINT: test brevity

inline TypePtr Scalar(DataType dtype) { return ScalarType::Make(dtype); }
inline VarPtr IndexVar(const std::string& name) { return Var::Make(name, Scalar(DataType::INDEX)); }
inline VarPtr ScalarVar(const std::string& name, DataType dtype) { return Var::Make(name, Scalar(dtype)); }

inline ExprPtr Bin(BinaryOp op, const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(op, a, b); }
inline ExprPtr Un(UnaryOp op, const ExprPtr& a) { return UnaryExpr::Make(op, a); }
inline ExprPtr CastTo(const ExprPtr& a, DataType dtype) { return UnaryExpr::MakeCast(a, dtype); }

// A call of `op_name` (registered or not) whose result has type `type`.
inline ExprPtr CallOp(const std::string& op_name, std::vector<ExprPtr> args,
                      TypePtr type = UnknownType::Make()) {
  return Call::Make(Op::Get(op_name), std::move(args), {}, std::move(type));
}

// A call of the registered op `name`, typed by the op's deduction.
inline CallPtr Op(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs));
}
// A tuple of INDEX literals: offsets and shapes such as [0, 0].
inline ExprPtr Tuple(const std::vector<int64_t>& values) { return MakeTuple::Make(Ints(values)); }

// A call of the program function `name`.
inline ExprPtr CallFn(const std::string& name, std::vector<ExprPtr> args, TypePtr type, Attrs attrs = {}) {
  return Call::Make(GlobalVar::Make(name), std::move(args), {}, std::move(type), Span(), std::move(attrs));
}

inline TypePtr Tensor16() { return TensorType::Make(std::vector<int64_t>{16, 16}, DataType::FP32); }
// A [16, 16] FP32 tensor variable.
inline VarPtr TensorVar(const std::string& name) { return Var::Make(name, Tensor16()); }
inline VarPtr TensorVar(const std::string& name, const std::vector<int64_t>& shape, DataType dtype = DataType::FP32) {
  return Var::Make(name, TensorType::Make(shape, dtype));
}

inline StmtPtr Assign(const VarPtr& var, const ExprPtr& value) { return AssignStmt::Make(var, value); }
// `var = value`, with `var` a new variable typed as the value.
inline StmtPtr Let(VarPtr& var, const std::string& name, const ExprPtr& value) {
  var = Var::Make(name, value->type);
  return Assign(var, value);
}
inline StmtPtr Eval(const ExprPtr& e) { return EvalStmt::Make(e); }
inline StmtPtr Return(std::vector<ExprPtr> values) { return ReturnStmt::Make(std::move(values)); }
inline StmtPtr Yield(std::vector<ExprPtr> values) { return YieldStmt::Make(std::move(values)); }
inline StmtPtr Seq(std::vector<StmtPtr> stmts) { return SeqStmts::Make(std::move(stmts)); }

inline ProgramPtr ProgramOf(std::vector<VarPtr> params, StmtPtr body, std::vector<TypePtr> returns = {}) {
  auto f = Function::Make("main", FunctionType::Opaque, std::move(params), {}, std::move(returns), std::move(body));
  return Program::Make("test", {f});
}
inline StmtPtr BodyOf(const ProgramPtr& program) { return program->functions.at(0)->body; }

// A function; empty `directions` make every parameter In.
inline FunctionPtr Fn(const std::string& name, FunctionType type, std::vector<VarPtr> params,
                      std::vector<ParamDirection> directions, std::vector<TypePtr> returns, StmtPtr body) {
  if (directions.empty()) directions.assign(params.size(), ParamDirection::In);
  return Function::Make(name, type, std::move(params), std::move(directions), std::move(returns), std::move(body));
}
inline FunctionPtr Fn(const std::string& name, FunctionType type, std::vector<VarPtr> params,
                      std::vector<TypePtr> returns, StmtPtr body) {
  return Fn(name, type, std::move(params), {}, std::move(returns), std::move(body));
}
// An InCore function (of another `type` when given).
inline FunctionPtr Kernel(std::vector<VarPtr> params, std::vector<ParamDirection> directions, StmtPtr body,
                          std::vector<TypePtr> returns, std::string name = "k",
                          FunctionType type = FunctionType::InCore) {
  return Function::Make(std::move(name), type, std::move(params), std::move(directions), std::move(returns),
                        std::move(body));
}

// Where `pass` runs among the passes `names` (a pipeline's pass_names()):
// its first index, or names.size() when it is not there.
inline std::ptrdiff_t PositionOf(const std::vector<std::string>& names, const std::string& pass) {
  return std::find(names.begin(), names.end(), pass) - names.begin();
}

// The first function of a program, printed.
inline std::string Printed(const ProgramPtr& program) { return PrintFunction(program->functions.at(0)); }
// The function called `function`, printed.
inline std::string Printed(const ProgramPtr& program, const std::string& function) {
  for (const auto& f : program->functions) {
    if (f->name == function) return PrintFunction(f);
  }
  return "no function " + function;
}

// Runs the pass on a program the full verifier accepts (type checks and
// placement included: every op must be registered) and checks the result the
// same way.
template <class PassT>
ProgramPtr RunPass(const ProgramPtr& program, pass::PassContext& ctx) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  PassT pass;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_EQ(AllVerifierErrors(out), "");
  return out;
}
template <class PassT>
ProgramPtr RunPass(const ProgramPtr& program) {
  pass::PassContext ctx;
  return RunPass<PassT>(program, ctx);
}

// The error `pass` raises on the program; a test failure when it raises none.
inline Error PassError(pass::Pass& pass, const ProgramPtr& program, pass::PassContext& ctx) {
  try {
    pass.Run(program, ctx);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << pass.name() << " accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}
inline Error PassError(pass::Pass& pass, const ProgramPtr& program) {
  pass::PassContext ctx;
  return PassError(pass, program, ctx);
}
template <class PassT>
Error PassError(const ProgramPtr& program, pass::PassContext& ctx) {
  PassT pass;
  return PassError(pass, program, ctx);
}
template <class PassT>
Error PassError(const ProgramPtr& program) {
  pass::PassContext ctx;
  return PassError<PassT>(program, ctx);
}

// Structural equality (binding sites map onto each other); a failure shows
// where the trees first differ.
#define EXPECT_SAME_IR(actual, expected) \
  EXPECT_NO_THROW(::pypto::ir::AssertStructuralEqual((actual), (expected)))

// The verifier's structural rules (SSA, scoping, yields, break/continue,
// returns). Type checking is off: the tests call unregistered ops.
inline std::string VerifierErrors(const ProgramPtr& program) {
  VerifyOptions options;
  options.type_check = false;
  options.placement = false;
  return AllVerifierErrors(program, options);
}

#define EXPECT_VALID_IR(program) EXPECT_EQ(::pypto::test::VerifierErrors(program), "")

// Every variable the program defines, in definition order.
class DefCollector : public IRVisitor {
 public:
  std::vector<VarPtr> defs;
  void VisitVarDef(const VarPtr& var) override {
    defs.push_back(var);
    IRVisitor::VisitVarDef(var);
  }
};

// True when no variable is defined twice (the SSA single-definition rule).
inline bool DefinesEachVarOnce(const ProgramPtr& program) {
  DefCollector collector;
  collector.VisitProgram(program);
  std::unordered_set<const Var*> seen;
  for (const auto& v : collector.defs) {
    if (!seen.insert(v.get()).second) return false;
  }
  return true;
}

}  // namespace pypto::test
