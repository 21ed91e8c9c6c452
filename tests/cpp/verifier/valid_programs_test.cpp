// Well-formed programs produce no diagnostics under every rule.
#include "pypto/ops/registry.h"
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

const ops::OpRegistry& Registry() { return ops::OpRegistry::Global(); }

void ExpectValid(const ProgramPtr& program) {
  auto ds = Verify(program);
  EXPECT_TRUE(ds.empty()) << Dump(ds);
  EXPECT_NO_THROW(VerifyOrThrow(program));
}

// main(a: Tensor[[64]], n: INDEX) -> Tensor[[64]]:
//   for i, (acc,) in pl.range(0, n, 1, init_values=(a,)):
//       with pl.at(level=pl.Level.CORE_GROUP):
//           nxt = test_verifier.add(acc, a)
//       out = pl.yield_(nxt)
//   return out
TEST(ValidPrograms, LoopCarryingATensorThroughAnInCoreScope) {
  auto a = V("a", TensorT({64}));
  auto n = V("n", IndexT());
  auto i = V("i", IndexT());
  auto acc = IterArg::Make("acc", a->type, a);
  auto nxt = V("nxt", a->type);
  auto out = V("out", a->type);
  auto scope = ScopeStmt::Make(ScopeKind::InCore,
                               AssignStmt::Make(nxt, Registry().Create(kAddOp, {acc, a}), At(4)), "", At(3));
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {acc}, MakeSeq({scope, YieldStmt::Make({nxt}, At(5))}), {out},
                            ForKind::Sequential, {}, At(2));
  auto main = MakeFn("main", {a, n}, {a->type}, MakeSeq({loop, ReturnStmt::Make({out}, At(6))}),
                     FunctionType::Orchestration);
  ExpectValid(Program::Make("p", {main}));
}

// f(n: INDEX) -> INDEX:
//   acc0 = 0
//   for i, (acc,) in pl.range(0, n, 1, init_values=(acc0,)):
//       if i < 2:
//           if i < 1:
//               r1 = pl.yield_(acc)
//           else:
//               r1 = pl.yield_(i)
//           r2 = pl.yield_(r1)
//       else:
//           r2 = pl.yield_(0)
//       nxt = acc + r2
//       if nxt > 100:
//           break
//       total = pl.yield_(nxt)
//   return total
TEST(ValidPrograms, NestedIfsWithPhisInALoop) {
  auto n = V("n", IndexT());
  auto acc0 = V("acc0", IndexT());
  auto i = V("i", IndexT());
  auto acc = IterArg::Make("acc", IndexT(), acc0);
  auto r1 = V("r1", IndexT());
  auto r2 = V("r2", IndexT());
  auto nxt = V("nxt", IndexT());
  auto total = V("total", IndexT());
  auto inner = IfStmt::Make(BinaryExpr::Make(BinaryOp::Lt, i, Int(1)), YieldStmt::Make({acc}),
                            YieldStmt::Make({i}), {r1}, At(5));
  auto outer = IfStmt::Make(BinaryExpr::Make(BinaryOp::Lt, i, Int(2)), MakeSeq({inner, YieldStmt::Make({r1})}),
                            YieldStmt::Make({Int(0)}), {r2}, At(4));
  auto stop = IfStmt::Make(BinaryExpr::Make(BinaryOp::Gt, nxt, Int(100)), BreakStmt::Make(), nullptr, {}, At(13));
  auto body = MakeSeq({outer, AssignStmt::Make(nxt, BinaryExpr::Make(BinaryOp::Add, acc, r2), At(12)), stop,
                       YieldStmt::Make({nxt}, At(15))});
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {acc}, body, {total}, ForKind::Sequential, {}, At(3));
  auto f = MakeFn("f", {n}, {IndexT()},
                  MakeSeq({AssignStmt::Make(acc0, Int(0), At(2)), loop, ReturnStmt::Make({total}, At(16))}));
  ExpectValid(Program::Make("p", {f}));
}

// f(n: INDEX) -> INDEX:
//   k0 = 0
//   for (k,) in pl.while_(init_values=(k0,)):
//       pl.cond(k < n)
//       k1 = test_verifier.scalar_add(k, 1)
//       kf = pl.yield_(k1)
//   return kf
TEST(ValidPrograms, WhileLoopWhoseConditionReadsItsIterArg) {
  auto n = V("n", IndexT());
  auto k0 = V("k0", IndexT());
  auto k = IterArg::Make("k", IndexT(), k0);
  auto k1 = V("k1", IndexT());
  auto kf = V("kf", IndexT());
  auto body = MakeSeq({AssignStmt::Make(k1, Registry().Create(kScalarAddOp, {k, Int(1)}), At(5)),
                       YieldStmt::Make({k1}, At(6))});
  auto loop = WhileStmt::Make(BinaryExpr::Make(BinaryOp::Lt, k, n), {k}, body, {kf}, At(3));
  auto f = MakeFn("f", {n}, {IndexT()},
                  MakeSeq({AssignStmt::Make(k0, Int(0), At(2)), loop, ReturnStmt::Make({kf}, At(7))}),
                  FunctionType::Orchestration);
  ExpectValid(Program::Make("p", {f}));
}

// kernel(x: Tensor[[N, 64]], y: Tensor[[N, 64]]) -> Tensor[[N, 64]]   (InCore)
// split(x: Tensor[[M, 64]]) -> (Tensor[[M, 64]], INDEX)                (InCore)
// main(a: Tensor[[128, 64]], b: Tensor[[128, 64]]) -> Tensor[[128, 64]]:
//   s = kernel(a, b)
//   pair = split(s)
//   first = pair[0]
//   return first
TEST(ValidPrograms, FunctionsCallingFunctions) {
  auto dim_n = V("N", IndexT());
  auto x = V("x", TensorType::Make({dim_n, Int(64)}, DataType::FP32));
  auto y = V("y", x->type);
  auto z = V("z", x->type);
  auto kernel = MakeFn("kernel", {x, y}, {x->type},
                       MakeSeq({AssignStmt::Make(z, Registry().Create(kAddOp, {x, y}), At(2)),
                                ReturnStmt::Make({z}, At(3))}),
                       FunctionType::InCore);
  auto dim_m = V("M", IndexT());
  auto w = V("w", TensorType::Make({dim_m, Int(64)}, DataType::FP32));
  auto split = MakeFn("split", {w}, {w->type, IndexT()}, ReturnStmt::Make({w, dim_m}, At(5)), FunctionType::InCore);

  auto a = V("a", TensorT({128, 64}));
  auto b = V("b", a->type);
  auto s = V("s", a->type);
  auto pair_type = TupleType::Make({a->type, IndexT()});
  auto pair = V("pair", pair_type);
  auto first = V("first", a->type);
  auto body = MakeSeq({AssignStmt::Make(s, Call::Make(GlobalVar::Make("kernel"), {a, b}, {}, a->type), At(8)),
                       AssignStmt::Make(pair, Call::Make(GlobalVar::Make("split"), {s}, {}, pair_type), At(9)),
                       AssignStmt::Make(first, TupleGetItem::Make(pair, 0), At(10)),
                       ReturnStmt::Make({first}, At(11))});
  auto main = MakeFn("main", {a, b}, {a->type}, body, FunctionType::Orchestration);
  ExpectValid(Program::Make("p", {main, kernel, split}));
}

// main() -> Tensor[[64]]:
//   buf = test_verifier.create(size=64)
//   with pl.at(level=pl.Level.CORE_GROUP):
//       twice = test_verifier.add(buf, buf)
//   return twice
TEST(ValidPrograms, ScopeDefinitionsStayVisibleAfterTheScope) {
  auto buf = V("buf", TensorT({64}));
  auto twice = V("twice", buf->type);
  auto create = Registry().Create(kCreateOp, {}, Attrs{{"size", int64_t{64}}});
  auto scope = ScopeStmt::Make(ScopeKind::InCore, AssignStmt::Make(twice, Registry().Create(kAddOp, {buf, buf}), At(4)),
                               "", At(3));
  auto main = MakeFn("main", {}, {buf->type},
                     MakeSeq({AssignStmt::Make(buf, create, At(2)), scope, ReturnStmt::Make({twice}, At(5))}),
                     FunctionType::Orchestration);
  ExpectValid(Program::Make("p", {main}));
}

}  // namespace
}  // namespace pypto::ir::verifier_test
