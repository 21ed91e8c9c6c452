// The orchestration programs the host backend tests generate and run, and
// the native kernels they run with. Tensors are 8 x 4 FP32 unless noted.
#pragma once

#include <cstring>

#include "backend_host/host_test_util.h"

namespace pypto::host::testing {

constexpr int64_t kRows = 8;
constexpr int64_t kCols = 4;

// ------------------------------------------------------------------ kernels

// add(a, b, out): out = a + b.
inline void AddKernel(const int64_t* args, PyptoRtCoreContext*) {
  const auto& out = Desc(args, 2);
  for (int64_t r = 0; r < out.shape[0]; ++r) {
    for (int64_t c = 0; c < out.shape[1]; ++c) Element(args, 2, r, c) = Element(args, 0, r, c) + Element(args, 1, r, c);
  }
}

// scale(x, y): y = 2 * x.
inline void ScaleKernel(const int64_t* args, PyptoRtCoreContext*) {
  const auto& y = Desc(args, 1);
  for (int64_t r = 0; r < y.shape[0]; ++r) {
    for (int64_t c = 0; c < y.shape[1]; ++c) Element(args, 1, r, c) = 2 * Element(args, 0, r, c);
  }
}

// add_rows(a, r, b, out): rows [r, r + 2) of out = a + b. Slots: a, b, out, r.
inline void AddRowsKernel(const int64_t* args, PyptoRtCoreContext*) {
  int64_t row = args[3];
  for (int64_t r = row; r < row + 2; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 2, r, c) = Element(args, 0, r, c) + Element(args, 1, r, c);
  }
}

// rows(x, out), one block per pair of rows: out = 2 * x on rows of the block.
inline void RowsKernel(const int64_t* args, PyptoRtCoreContext* ctx) {
  for (int64_t r = 2 * ctx->block_idx; r < 2 * ctx->block_idx + 2; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 1, r, c) = 2 * Element(args, 0, r, c);
  }
}

// The two halves of a cluster task on (x, out): the AIC doubles the top
// half, the AIV triples the bottom half.
inline void TopHalfKernel(const int64_t* args, PyptoRtCoreContext* ctx) {
  EXPECT_EQ(ctx->core_type, PYPTO_RT_AIC);
  for (int64_t r = 0; r < kRows / 2; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 1, r, c) = 2 * Element(args, 0, r, c);
  }
}
inline void BottomHalfKernel(const int64_t* args, PyptoRtCoreContext* ctx) {
  EXPECT_EQ(ctx->core_type, PYPTO_RT_AIV);
  for (int64_t r = kRows / 2; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 1, r, c) = 3 * Element(args, 0, r, c);
  }
}

// fill(out, v): out = v, v an FP32 scalar slot (its 32 bits).
inline void FillKernel(const int64_t* args, PyptoRtCoreContext*) {
  uint32_t bits = static_cast<uint32_t>(args[1]);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 0, r, c) = value;
  }
}

// bump(t): t += 1.
inline void BumpKernel(const int64_t* args, PyptoRtCoreContext*) {
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kCols; ++c) Element(args, 0, r, c) += 1;
  }
}

// ------------------------------------------------------------------ programs

using PD = ParamDirection;

inline FunctionPtr Add() {
  return KernelFn("add", {TensorParam("a"), TensorParam("b"), TensorParam("out")}, {PD::In, PD::In, PD::Out});
}
inline FunctionPtr Scale() { return KernelFn("scale", {TensorParam("x"), TensorParam("y")}, {PD::In, PD::Out}); }

// main(a, b, out): add(a, b, out); return out
inline ProgramPtr HelloWorld() {
  auto a = TensorParam("a"), b = TensorParam("b"), out = TensorParam("out");
  auto add = Add();
  auto main = Orchestration("main", {a, b, out}, {Mat(kRows, kCols)},
                            {EvalStmt::Make(KernelCall(add, {a, b, out}, {"Input", "Input", "OutputExisting"}, 2)),
                             ReturnStmt::Make({out}, SourceLine(3))});
  return Program::Make("hello", {add, main});
}

// main(a, b, out): for r in range(0, 8, 2) (or pl.parallel): add_rows(a, r, b, out); return out
inline ProgramPtr ChunkedLoop(ForKind kind = ForKind::Sequential) {
  auto a = TensorParam("a"), b = TensorParam("b"), out = TensorParam("out");
  auto kernel = KernelFn("add_rows", {TensorParam("a"), IndexParam("r"), TensorParam("b"), TensorParam("out")},
                         {PD::In, PD::In, PD::In, PD::InOut});
  auto r = IndexParam("r");
  auto body = EvalStmt::Make(KernelCall(kernel, {a, r, b, out}, {"Input", "Scalar", "Input", "InOut"}, 3));
  auto loop = ForStmt::Make(r, Int(0), Int(kRows), Int(2), {}, body, {}, kind, {}, SourceLine(2));
  auto main = Orchestration("main", {a, b, out}, {Mat(kRows, kCols)}, {loop, ReturnStmt::Make({out})});
  return Program::Make("chunked", {kernel, main});
}

// main(x, y): stage = create; stage_1, first = submit(scale, x, stage);
//             y_1, _ = submit(add, stage_1, x, y, deps=[first]); return y_1
inline ProgramPtr TaskGraph() {
  auto x = TensorParam("x"), y = TensorParam("y");
  auto scale = Scale();
  auto add = Add();
  VarPtr stage, stage_1, first, y_1, second;
  std::vector<StmtPtr> body{Let(stage, "stage", Create())};
  for (auto& s : SubmitStmts(KernelCall(scale, {x, stage}, {"Input", "OutputExisting"}, 3), {}, &stage_1, first, "first")) {
    body.push_back(s);
  }
  for (auto& s : SubmitStmts(KernelCall(add, {stage_1, x, y}, {"Input", "Input", "OutputExisting"}, 4), {first}, &y_1,
                             second, "second")) {
    body.push_back(s);
  }
  body.push_back(ReturnStmt::Make({y_1}));
  return Program::Make("task_graph", {add, scale, Orchestration("main", {x, y}, {Mat(kRows, kCols)}, body)});
}

// main(x, y, z, out):
//   with pl.manual_scope():
//     ids = array.create(2, TASK_ID)
//     y_1, t0 = submit(scale, x, y); ids[0] = t0
//     z_1, t1 = submit(scale, x, z); ids[1] = t1
//     done = task_dummy(deps=[ids])
//     out_1, _ = submit(add, y_1, z_1, out, deps=[done])
//   return out_1
inline ProgramPtr ManualJoin() {
  auto x = TensorParam("x"), y = TensorParam("y"), z = TensorParam("z"), out = TensorParam("out");
  auto scale = Scale();
  auto add = Add();
  VarPtr ids, ids_1, ids_2, y_1, t0, z_1, t1, done, out_1, t2;
  std::vector<StmtPtr> scope{
      Let(ids, "ids", OpCall("array.create", {Int(2)}, Attrs{{"dtype", DataType::TASK_ID}}, 3))};
  auto append = [&](std::vector<StmtPtr> stmts) { scope.insert(scope.end(), stmts.begin(), stmts.end()); };
  append(SubmitStmts(KernelCall(scale, {x, y}, {"Input", "OutputExisting"}, 4), {}, &y_1, t0, "t0"));
  scope.push_back(Let(ids_1, "ids_1", OpCall("array.update_element", {ids, Int(0), t0}, {}, 4)));
  append(SubmitStmts(KernelCall(scale, {x, z}, {"Input", "OutputExisting"}, 5), {}, &z_1, t1, "t1"));
  scope.push_back(Let(ids_2, "ids_2", OpCall("array.update_element", {ids_1, Int(1), t1}, {}, 5)));
  scope.push_back(Let(done, "done", OpCall("system.task_dummy", {}, Attrs{{"deps", std::vector<ExprPtr>{ids_2}}}, 6)));
  append(SubmitStmts(KernelCall(add, {y_1, z_1, out}, {"Input", "Input", "OutputExisting"}, 7), {done}, &out_1, t2,
                     "t2"));
  auto manual = ScopeStmt::Make(ScopeKind::Runtime, SeqStmts::Make(scope), "", SourceLine(2));
  auto main = Orchestration("main", {x, y, z, out}, {Mat(kRows, kCols)}, {manual, ReturnStmt::Make({out_1})});
  return Program::Make("manual_join", {add, scale, main});
}

// main(x) -> Tensor: t = create; t_1 = scale(x, t); return t_1
inline ProgramPtr FreshResult() {
  auto x = TensorParam("x");
  auto scale = Scale();
  VarPtr t, t_1;
  auto main = Orchestration("main", {x}, {Mat(kRows, kCols)},
                            {Let(t, "t", Create()),
                             Let(t_1, "t_1", KernelCall(scale, {x, t}, {"Input", "OutputExisting"}, 3)),
                             ReturnStmt::Make({t_1})});
  return Program::Make("fresh", {scale, main});
}

// main(x, out): xs = x[4:8, :]; os = out[0:4, :]; scale(xs, os); return out
inline ProgramPtr Views() {
  auto x = TensorParam("x"), out = TensorParam("out");
  auto scale = KernelFn("scale", {TensorParam("x", 4, 4), TensorParam("y", 4, 4)}, {PD::In, PD::Out});
  VarPtr xs, os;
  auto main = Orchestration(
      "main", {x, out}, {Mat(kRows, kCols)},
      {Let(xs, "xs", OpCall("tensor.slice", {x, Dims({4, 4}), Dims({4, 0})})),
       Let(os, "os", OpCall("tensor.slice", {out, Dims({4, 4}), Dims({0, 0})})),
       EvalStmt::Make(KernelCall(scale, {xs, os}, {"Input", "OutputExisting"}, 3)), ReturnStmt::Make({out})});
  return Program::Make("views", {scale, main});
}

// main(x, out): grid(x, out, core_num=4), grid an Spmd wrapper of rows.
inline ProgramPtr Spmd() {
  auto x = TensorParam("x"), out = TensorParam("out");
  auto rows = KernelFn("rows", {TensorParam("x"), TensorParam("out")}, {PD::In, PD::Out});
  auto gx = TensorParam("x"), gout = TensorParam("out");
  VarPtr r;
  auto grid = Function::Make("grid", FunctionType::Spmd, {gx, gout}, {PD::In, PD::Out}, {Mat(kRows, kCols)},
                             SeqStmts::Make({Let(r, "r", KernelCall(rows, {gx, gout}, {}, 10)), ReturnStmt::Make({r})}));
  auto call = KernelCall(grid, {x, out}, {"Input", "OutputExisting"}, 2,
                         Attrs{{"core_num", ExprPtr(Int(4))}, {"sync_start", false}});
  auto main = Orchestration("main", {x, out}, {Mat(kRows, kCols)}, {EvalStmt::Make(call), ReturnStmt::Make({out})});
  return Program::Make("spmd", {grid, main, rows});
}

// main(x, out): cluster(x, out), cluster a Group of an AIC and an AIV kernel.
inline ProgramPtr Group() {
  auto x = TensorParam("x"), out = TensorParam("out");
  auto top = KernelFn("top_half", {TensorParam("x"), TensorParam("out")}, {PD::In, PD::Out}, FunctionType::AIC);
  auto bottom = KernelFn("bottom_half", {TensorParam("x"), TensorParam("out")}, {PD::In, PD::Out}, FunctionType::AIV);
  auto gx = TensorParam("x"), gout = TensorParam("out");
  auto cluster = Function::Make("cluster", FunctionType::Group, {gx, gout}, {PD::In, PD::Out}, {Mat(kRows, kCols)},
                                SeqStmts::Make({EvalStmt::Make(KernelCall(top, {gx, gout}, {}, 10)),
                                                EvalStmt::Make(KernelCall(bottom, {gx, gout}, {}, 11)),
                                                ReturnStmt::Make({gout})}));
  auto main = Orchestration("main", {x, out}, {Mat(kRows, kCols)},
                            {EvalStmt::Make(KernelCall(cluster, {x, out}, {"Input", "OutputExisting"}, 2)),
                             ReturnStmt::Make({out})});
  return Program::Make("group", {bottom, cluster, main, top});
}

// main(out, n):
//   if n > 2: s = n * 10  else: s = (n - 7) // 2
//   fill(out, cast(s, FP32) + 0.5); return out
inline ProgramPtr IfElse() {
  auto out = TensorParam("out");
  auto n = IndexParam("n");
  auto fill = KernelFn("fill", {TensorParam("out"), Var::Make("v", ScalarType::Make(DataType::FP32))},
                       {PD::Out, PD::In});
  auto s = IndexParam("s");
  auto then_body = YieldStmt::Make({BinaryExpr::Make(BinaryOp::Mul, n, Int(10))});
  auto else_body = YieldStmt::Make(
      {BinaryExpr::Make(BinaryOp::FloorDiv, BinaryExpr::Make(BinaryOp::Sub, n, Int(7)), Int(2))});
  auto branch = IfStmt::Make(BinaryExpr::Make(BinaryOp::Gt, n, Int(2)), then_body, else_body, {s}, SourceLine(2));
  VarPtr v;
  auto value = BinaryExpr::Make(BinaryOp::Add, UnaryExpr::MakeCast(s, DataType::FP32), Float(0.5));
  auto main = Orchestration("main", {out, n}, {Mat(kRows, kCols)},
                            {branch, Let(v, "v", value),
                             EvalStmt::Make(KernelCall(fill, {out, v}, {"OutputExisting", "Scalar"}, 4)),
                             ReturnStmt::Make({out})});
  return Program::Make("if_else", {fill, main});
}

// main(t, n): for (k, acc) in while_(init=(0, t)): cond k < n; acc_1 = bump(acc); yield (k + 1, acc_1)
//   return acc_out
inline ProgramPtr WhileLoop() {
  auto t = TensorParam("t");
  auto n = IndexParam("n");
  auto bump = KernelFn("bump", {TensorParam("t")}, {PD::InOut});
  auto k = IterArg::Make("k", ScalarType::Make(DataType::INDEX), Int(0));
  auto acc = IterArg::Make("acc", Mat(kRows, kCols), t);
  VarPtr acc_1;
  auto body = SeqStmts::Make({Let(acc_1, "acc_1", KernelCall(bump, {acc}, {"InOut"}, 3)),
                              YieldStmt::Make({BinaryExpr::Make(BinaryOp::Add, k, Int(1)), acc_1})});
  auto k_out = IndexParam("k_out");
  auto acc_out = Var::Make("acc_out", Mat(kRows, kCols));
  auto loop = WhileStmt::Make(BinaryExpr::Make(BinaryOp::Lt, k, n), {k, acc}, body, {k_out, acc_out}, SourceLine(2));
  auto main = Orchestration("main", {t, n}, {Mat(kRows, kCols)}, {loop, ReturnStmt::Make({acc_out})});
  return Program::Make("while_loop", {bump, main});
}

}  // namespace pypto::host::testing
