// Small IR programs built from scratch on every call, so that two calls give
// independently built but structurally equal trees.
#pragma once

#include <string>

#include "pypto/ir/ir.h"

namespace pypto::ir::sample {

inline TypePtr Index() { return ScalarType::Make(DataType::INDEX); }

// def sum(n):
//   acc0 = 0
//   for i, (acc,) in pl.range(0, n, 1, init_values=(acc0,)):
//     nxt = acc + i
//     total = pl.yield_(nxt)
//   return total
inline FunctionPtr SumFunction(const std::string& name = "sum", int64_t init = 0,
                               ForKind for_kind = ForKind::Sequential) {
  auto n = Var::Make("n", Index());
  auto acc0 = Var::Make("acc0", Index());
  auto i = Var::Make("i", Index());
  auto acc = IterArg::Make("acc", Index(), acc0);
  auto nxt = Var::Make("nxt", Index());
  auto total = Var::Make("total", Index());
  auto loop_body = MakeSeq({AssignStmt::Make(nxt, BinaryExpr::Make(BinaryOp::Add, acc, i)), YieldStmt::Make({nxt})});
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {acc}, loop_body, {total}, for_kind);
  auto body = MakeSeq({AssignStmt::Make(acc0, Int(init)), loop, ReturnStmt::Make({total})});
  return Function::Make(name, FunctionType::Opaque, {n}, {}, {Index()}, body);
}

// def add(a: Tensor[[64, 64], FP32], b: Tensor[[64, 64], FP32]):
//   c = tile.add(a, b, mode="fast")
//   return c
inline FunctionPtr TileAddFunction(const std::string& op_name = "tile.add", DataType dtype = DataType::FP32,
                                   int64_t rows = 64) {
  auto tensor = TensorType::Make(std::vector<int64_t>{rows, 64}, dtype);
  auto a = Var::Make("a", tensor);
  auto b = Var::Make("b", tensor);
  auto c = Var::Make("c", TileType::Make(std::vector<int64_t>{rows, 64}, dtype, MemorySpace::Vec));
  auto call = Call::Make(Op::Get(op_name), {a, b}, Attrs{{"mode", std::string("fast")}}, c->type);
  auto body = MakeSeq({AssignStmt::Make(c, call), ReturnStmt::Make({c})});
  return Function::Make("add", FunctionType::InCore, {a, b}, {}, {c->type}, body);
}

inline ProgramPtr TwoFunctionProgram(int64_t init = 0) {
  return Program::Make("prog", {SumFunction("sum", init), TileAddFunction()});
}

}  // namespace pypto::ir::sample
