// Builders for InCore kernels over 2-D tiles, shared by the tests of
// InitMemRef, MemoryReuse and AllocateMemoryAddr (the general ones are in
// support/pass_test_util.h).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/pass_test_util.h"

namespace pypto::test {

inline Attrs Target(MemorySpace space) {
  Attrs kwargs;
  kwargs.Set("target_memory", EnumAttr::Of(space));
  return kwargs;
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

}  // namespace pypto::test
