#include "outline_scopes.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::test {
namespace {

using passes::OutlineClusterScopesPass;
using passes::OutlineHierarchyScopesPass;
using passes::OutlineIncoreScopesPass;

ExprPtr Origin() { return Tuple({0, 0}); }
StmtPtr Scope(ScopeKind kind, std::vector<StmtPtr> body, const std::string& name_hint = "") {
  return ScopeStmt::Make(kind, Seq(std::move(body)), name_hint);
}

std::string Errors(const ProgramPtr& program, bool placement) {
  VerifyOptions options;
  options.placement = placement;
  return AllVerifierErrors(program, options);
}

// Runs `pass` on a valid program and checks that the result is valid too.
// Op placement is checked where the scopes hold tensor ops (InCore scopes).
ProgramPtr Outlined(pass::Pass& pass, const ProgramPtr& program, bool placement = true) {
  EXPECT_EQ(Errors(program, placement), "");
  pass::PassContext ctx;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_EQ(Errors(out, placement), "");
  return out;
}

TEST(OutlineIncoreScopes, DescribesItself) {
  OutlineIncoreScopesPass pass;
  EXPECT_EQ(pass.name(), "OutlineIncoreScopes");
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::SplitIncoreOrch));
  EXPECT_EQ(OutlineHierarchyScopesPass().name(), "OutlineHierarchyScopes");
  EXPECT_EQ(OutlineClusterScopesPass().name(), "OutlineClusterScopes");
}

// with pl.at(CORE_GROUP): t = x + 1.0; out1 = assemble(out, t)   then return out1
TEST(OutlineIncoreScopes, OutlinesAScopeWithAWriteOnlyTensorAsOutParam) {
  auto x = TensorVar("x");
  auto out = TensorVar("out");
  auto t = TensorVar("t");
  auto out1 = TensorVar("out1");
  auto program = Program::Make(
      "test", {Fn("main", FunctionType::Opaque, {x, out}, {}, {Tensor16()},
                  Seq({Scope(ScopeKind::InCore, {Assign(t, Op("tensor.adds", {x, Float(1.0)})),
                                                 Assign(out1, Op("tensor.assemble", {out, t, Origin()}))}),
                       Return({out1})}))});
  OutlineIncoreScopesPass pass;
  ProgramPtr result = Outlined(pass, program);

  auto ox = TensorVar("x");
  auto oout = TensorVar("out");
  auto oout1 = TensorVar("out1");
  auto kx = TensorVar("x");
  auto kout = TensorVar("out");
  auto kt = TensorVar("t");
  auto kout1 = TensorVar("out1");
  auto expected = Program::Make(
      "test",
      {Fn("main", FunctionType::Orchestration, {ox, oout}, {}, {Tensor16()},
          Seq({Assign(oout1, CallFn("main_incore_0", {ox, oout}, Tensor16())), Return({oout1})})),
       Fn("main_incore_0", FunctionType::InCore, {kx, kout}, {ParamDirection::In, ParamDirection::Out}, {Tensor16()},
          Seq({Assign(kt, Op("tensor.adds", {kx, Float(1.0)})),
               Assign(kout1, Op("tensor.assemble", {kout, kt, Origin()})), Return({kout})}))});
  EXPECT_SAME_IR(result, expected);
  EXPECT_EQ(
      PrintProgram(result),
      "# pypto.program: test\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class test:\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        out1: pl.Tensor[[16, 16], pl.FP32] = self.main_incore_0(x, out)\n"
      "        return out1\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def main_incore_0(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
      "        out1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(out, t, [0, 0])\n"
      "        return out\n");
}

// A read-and-written tensor is InOut; two live-outs come back as a tuple; the name hint names the function.
TEST(OutlineIncoreScopes, ReturnsSeveralLiveOutsThroughATupleAndMarksReadWrittenTensorsInOut) {
  auto acc = TensorVar("acc");
  auto alpha = ScalarVar("alpha", DataType::FP32);
  auto s = TensorVar("s");
  auto acc1 = TensorVar("acc1");
  auto y = TensorVar("y");
  auto program =
      Program::Make("test", {Fn("main", FunctionType::Orchestration, {alpha, acc}, {}, {Tensor16(), Tensor16()},
                                Seq({Scope(ScopeKind::InCore,
                                           {Assign(s, Op("tensor.adds", {acc, alpha})),
                                            Assign(acc1, Op("tensor.assemble", {acc, s, Origin()})),
                                            Assign(y, Op("tensor.muls", {s, Float(2.0)}))},
                                           "update"),
                                     Return({acc1, y})}))});
  OutlineIncoreScopesPass pass;
  ProgramPtr result = Outlined(pass, program);

  auto tuple_type = TupleType::Make({Tensor16(), Tensor16()});
  auto oalpha = ScalarVar("alpha", DataType::FP32);
  auto oacc = TensorVar("acc");
  auto outs = Var::Make("update_outs", tuple_type);
  auto oacc1 = TensorVar("acc1");
  auto oy = TensorVar("y");
  auto kacc = TensorVar("acc");
  auto kalpha = ScalarVar("alpha", DataType::FP32);
  auto ks = TensorVar("s");
  auto kacc1 = TensorVar("acc1");
  auto ky = TensorVar("y");
  auto expected = Program::Make(
      "test",
      {Fn("main", FunctionType::Orchestration, {oalpha, oacc}, {}, {Tensor16(), Tensor16()},
          Seq({Assign(outs, CallFn("update", {oacc, oalpha}, tuple_type)), Assign(oacc1, TupleGetItem::Make(outs, 0)),
               Assign(oy, TupleGetItem::Make(outs, 1)), Return({oacc1, oy})})),
       Fn("update", FunctionType::InCore, {kacc, kalpha}, {ParamDirection::InOut, ParamDirection::In},
          {Tensor16(), Tensor16()},
          Seq({Assign(ks, Op("tensor.adds", {kacc, kalpha})),
               Assign(kacc1, Op("tensor.assemble", {kacc, ks, Origin()})),
               Assign(ky, Op("tensor.muls", {ks, Float(2.0)})), Return({kacc, ky})}))});
  EXPECT_SAME_IR(result, expected);
  EXPECT_EQ(
      PrintProgram(result),
      "# pypto.program: test\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class test:\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, alpha: pl.Scalar[pl.FP32], acc: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:\n"
      "        update_outs: pl.Tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]] = self.update(acc, alpha)\n"
      "        acc1: pl.Tensor[[16, 16], pl.FP32] = update_outs[0]\n"
      "        y: pl.Tensor[[16, 16], pl.FP32] = update_outs[1]\n"
      "        return acc1, y\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def update(self, acc: pl.InOut[pl.Tensor[[16, 16], pl.FP32]], alpha: pl.Scalar[pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:\n"
      "        s: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(acc, alpha)\n"
      "        acc1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(acc, s, [0, 0])\n"
      "        y: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.muls(s, 2.0)\n"
      "        return acc, y\n");
}

// Two scopes in a loop: names count per function; nothing live out gives a bare call.
TEST(OutlineIncoreScopes, NumbersScopesPerFunctionAndCallsScopesWithoutResultsForEffect) {
  auto x = TensorVar("x");
  auto out = TensorVar("out");
  auto i = IndexVar("i");
  auto a = TensorVar("a");
  auto b = TensorVar("b");
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {},
                            Seq({Scope(ScopeKind::InCore, {Assign(a, Op("tensor.assemble", {out, x, Origin()}))}),
                                 Scope(ScopeKind::InCore, {Assign(b, Op("tensor.assemble", {out, x, Origin()}))})}),
                            {});
  auto program = Program::Make("test", {Fn("main", FunctionType::Opaque, {x, out}, {}, {}, Seq({loop, Return({})}))});
  OutlineIncoreScopesPass pass;
  ProgramPtr result = Outlined(pass, program);

  auto kernel = [](const std::string& name) {
    auto kx = TensorVar("x");
    auto kout = TensorVar("out");
    auto ka = TensorVar("a");
    return Fn(name, FunctionType::InCore, {kout, kx}, {ParamDirection::Out, ParamDirection::In}, {},
              Seq({Assign(ka, Op("tensor.assemble", {kout, kx, Origin()})), Return({})}));
  };
  auto ox = TensorVar("x");
  auto oout = TensorVar("out");
  auto oi = IndexVar("i");
  auto oloop = ForStmt::Make(oi, Int(0), Int(4), Int(1), {},
                             Seq({Eval(CallFn("main_incore_0", {oout, ox}, UnknownType::Make())),
                                  Eval(CallFn("main_incore_1", {oout, ox}, UnknownType::Make()))}),
                             {});
  auto expected =
      Program::Make("test", {Fn("main", FunctionType::Orchestration, {ox, oout}, {}, {}, Seq({oloop, Return({})})),
                             kernel("main_incore_0"), kernel("main_incore_1")});
  EXPECT_SAME_IR(result, expected);
}

// x: Tensor[[n, 16]] with a dynamic dim n: n becomes an INDEX param ahead of
// x, and x's param type names it.
TEST(OutlineIncoreScopes, PassesDynamicDimsAsIndexParamsAheadOfTheirTensors) {
  auto dynamic = [](const VarPtr& n) { return TensorType::Make(std::vector<ExprPtr>{n, Int(16)}, DataType::FP32); };
  auto n = IndexVar("n");
  auto x = Var::Make("x", dynamic(n));
  auto t = Var::Make("t", dynamic(n));
  auto rows = IndexVar("rows");
  auto program =
      Program::Make("test", {Fn("main", FunctionType::Opaque, {x}, {}, {Scalar(DataType::INDEX)},
                                Seq({Scope(ScopeKind::InCore, {Assign(t, Op("tensor.adds", {x, Float(1.0)})),
                                                               Assign(rows, Bin(BinaryOp::Add, n, Int(1)))}),
                                     Return({rows})}))});
  OutlineIncoreScopesPass pass;
  ProgramPtr result = Outlined(pass, program);

  auto kn = IndexVar("n");
  auto kx = Var::Make("x", dynamic(kn));
  auto kt = Var::Make("t", dynamic(kn));
  auto krows = IndexVar("rows");
  auto ox = Var::Make("x", dynamic(n));
  auto orows = IndexVar("rows");
  auto expected = Program::Make(
      "test", {Fn("main", FunctionType::Orchestration, {ox}, {}, {Scalar(DataType::INDEX)},
                  Seq({Assign(orows, CallFn("main_incore_0", {n, ox}, Scalar(DataType::INDEX))), Return({orows})})),
               Fn("main_incore_0", FunctionType::InCore, {kn, kx}, {}, {Scalar(DataType::INDEX)},
                  Seq({Assign(kt, Op("tensor.adds", {kx, Float(1.0)})),
                       Assign(krows, Bin(BinaryOp::Add, kn, Int(1))), Return({krows})}))});
  EXPECT_SAME_IR(result, expected);
}

// An atomic assemble adds to what the target holds: the target is read too.
TEST(OutlineIncoreScopes, MarksAtomicallyAccumulatedTensorsInOut) {
  auto x = TensorVar("x");
  auto out = TensorVar("out");
  auto out1 = TensorVar("out1");
  auto atomic_assemble = [](const ExprPtr& target, const ExprPtr& source) {
    return ops::OpRegistry::Global().Create("tensor.assemble", {target, source, Origin()}, {{"atomic", int64_t{1}}});
  };
  auto program = Program::Make(
      "test", {Fn("main", FunctionType::Opaque, {x, out}, {}, {Tensor16()},
                  Seq({Scope(ScopeKind::InCore, {Assign(out1, atomic_assemble(out, x))}), Return({out1})}))});
  OutlineIncoreScopesPass pass;
  ProgramPtr result = Outlined(pass, program);
  const FunctionPtr kernel = result->Find("main_incore_0");
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->param_directions, (std::vector<ParamDirection>{ParamDirection::InOut, ParamDirection::In}));
  EXPECT_EQ(kernel->params[0]->name_hint, "out");
}

TEST(OutlineIncoreScopes, LeavesInCoreFunctionsAndScopeFreeProgramsAlone) {
  auto x = TensorVar("x");
  auto program = Program::Make("test", {Fn("main", FunctionType::Opaque, {x}, {}, {Tensor16()}, Seq({Return({x})}))});
  OutlineIncoreScopesPass pass;
  EXPECT_EQ(Outlined(pass, program), program);
}

TEST(OutlineIncoreScopes, RejectsNestedInCoreScopes) {
  auto x = TensorVar("x");
  auto t = TensorVar("t");
  auto inner = ScopeStmt::Make(ScopeKind::InCore, Seq({Assign(t, Op("tensor.adds", {x, Float(1.0)}))}), "",
                               Span("k.py", 4, 9, 4, 40));
  auto outer = ScopeStmt::Make(ScopeKind::InCore, Seq({inner}), "", Span("k.py", 3, 5, 4, 40));
  auto program = Program::Make("test", {Fn("main", FunctionType::Opaque, {x}, {}, {}, Seq({outer, Return({})}))});
  OutlineIncoreScopesPass pass;
  Error e = PassError(pass, program);
  EXPECT_EQ(
      e.message(),
      "OutlineIncoreScopes: in function 'main', the InCore scope at k.py:3:5 contains another InCore scope (at k.py:4:9); InCore scopes do not nest. Remove the inner `with pl.at(level=pl.Level.CORE_GROUP)` or move it out of the outer one");
}

TEST(OutlineIncoreScopes, RejectsANameHintThatNamesAnExistingFunction) {
  auto x = TensorVar("x");
  auto t = TensorVar("t");
  auto program = Program::Make(
      "test",
      {Fn("main", FunctionType::Opaque, {x}, {}, {},
          Seq({Scope(ScopeKind::InCore, {Assign(t, Op("tensor.adds", {x, Float(1.0)}))}, "main"), Return({})}))});
  OutlineIncoreScopesPass pass;
  Error e = PassError(pass, program);
  EXPECT_EQ(
      e.message(),
      "OutlineIncoreScopes: the scope outlined from function 'main' would be named 'main', but the program already has a function of that name; give the scope another name_hint");
}

TEST(OutlineHierarchyScopes, OutlinesOtherLevelsIntoOpaqueFunctionsWithLevelAndRole) {
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto scope = std::make_shared<ScopeStmt>(
      *As<ScopeStmt>(Scope(ScopeKind::Hierarchy, {Assign(y, CallFn("worker", {x}, Tensor16()))})));
  scope->level = Level::CHIP_DIE;
  scope->role = Role::SubWorker;
  auto wx = TensorVar("wx");
  auto worker = Fn("worker", FunctionType::InCore, {wx}, {}, {Tensor16()}, Seq({Return({wx})}));
  auto program = Program::Make(
      "test", {Fn("main", FunctionType::Opaque, {x}, {}, {Tensor16()}, Seq({scope, Return({y})})), worker});
  OutlineHierarchyScopesPass pass;
  ProgramPtr result = Outlined(pass, program, /*placement=*/false);

  auto ox = TensorVar("x");
  auto oy = TensorVar("y");
  auto hx = TensorVar("x");
  auto hy = TensorVar("y");
  auto outlined = std::make_shared<Function>(*Fn("main_hierarchy_0", FunctionType::Opaque, {hx}, {}, {Tensor16()},
                                                 Seq({Assign(hy, CallFn("worker", {hx}, Tensor16())), Return({hy})})));
  outlined->level = Level::CHIP_DIE;
  outlined->role = Role::SubWorker;
  auto expected =
      Program::Make("test", {Fn("main", FunctionType::Opaque, {ox}, {}, {Tensor16()},
                                Seq({Assign(oy, CallFn("main_hierarchy_0", {ox}, Tensor16())), Return({oy})})),
                             outlined, worker});
  EXPECT_SAME_IR(result, expected);
}

TEST(OutlineClusterScopes, OutlinesClustersIntoGroupsUnwrappingTheirSpmdAndStandaloneSpmdIntoSpmd) {
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto z = TensorVar("z");
  auto spmd_in_cluster = std::make_shared<ScopeStmt>(
      *As<ScopeStmt>(Scope(ScopeKind::Spmd, {Assign(y, CallFn("kernel", {x}, Tensor16()))})));
  spmd_in_cluster->core_num = Int(8);
  auto standalone = std::make_shared<ScopeStmt>(
      *As<ScopeStmt>(Scope(ScopeKind::Spmd, {Assign(z, CallFn("kernel", {y}, Tensor16()))})));
  standalone->core_num = Int(4);
  standalone->sync_start = true;
  auto kx = TensorVar("kx");
  auto kernel = Fn("kernel", FunctionType::InCore, {kx}, {}, {Tensor16()}, Seq({Return({kx})}));
  auto program =
      Program::Make("test", {Fn("main", FunctionType::Opaque, {x}, {}, {Tensor16()},
                                Seq({Scope(ScopeKind::Cluster, {spmd_in_cluster}), standalone, Return({z})})),
                             kernel});
  OutlineClusterScopesPass pass;
  ProgramPtr result = Outlined(pass, program, /*placement=*/false);

  auto ox = TensorVar("x");
  auto oy = TensorVar("y");
  auto oz = TensorVar("z");
  auto gx = TensorVar("x");
  auto gy = TensorVar("y");
  auto sy = TensorVar("y");
  auto sz = TensorVar("z");
  auto expected =
      Program::Make("test", {kernel,
                             Fn("main", FunctionType::Orchestration, {ox}, {}, {Tensor16()},
                                Seq({Assign(oy, CallFn("main_cluster_0", {ox}, Tensor16(),
                                                       {{"core_num", ExprPtr(Int(8))}, {"sync_start", false}})),
                                     Assign(oz, CallFn("main_spmd_0", {oy}, Tensor16(),
                                                       {{"core_num", ExprPtr(Int(4))}, {"sync_start", true}})),
                                     Return({oz})})),
                             Fn("main_cluster_0", FunctionType::Group, {gx}, {}, {Tensor16()},
                                Seq({Assign(gy, CallFn("kernel", {gx}, Tensor16())), Return({gy})})),
                             Fn("main_spmd_0", FunctionType::Spmd, {sy}, {}, {Tensor16()},
                                Seq({Assign(sz, CallFn("kernel", {sy}, Tensor16())), Return({sz})}))});
  EXPECT_SAME_IR(result, expected);
  EXPECT_EQ(
      PrintProgram(result),
      "# pypto.program: test\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class test:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, kx: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        return kx\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        y: pl.Tensor[[16, 16], pl.FP32] = self.main_cluster_0(x, attrs={\"core_num\": pl.const(8, pl.INDEX), \"sync_start\": False})\n"
      "        z: pl.Tensor[[16, 16], pl.FP32] = self.main_spmd_0(y, attrs={\"core_num\": pl.const(4, pl.INDEX), \"sync_start\": True})\n"
      "        return z\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.Group)\n"
      "    def main_cluster_0(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        y: pl.Tensor[[16, 16], pl.FP32] = self.kernel(x)\n"
      "        return y\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.Spmd)\n"
      "    def main_spmd_0(self, y: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        z: pl.Tensor[[16, 16], pl.FP32] = self.kernel(y)\n"
      "        return z\n");
}

TEST(OutlineClusterScopes, RejectsASpmdThatSharesItsClusterWithOtherStatements) {
  auto x = TensorVar("x");
  auto y = TensorVar("y");
  auto z = TensorVar("z");
  auto spmd = ScopeStmt::Make(ScopeKind::Spmd, Seq({Assign(y, CallFn("kernel", {x}, Tensor16()))}), "",
                              Span("c.py", 5, 9, 6, 30));
  auto cluster = ScopeStmt::Make(ScopeKind::Cluster, Seq({spmd, Assign(z, CallFn("kernel", {y}, Tensor16()))}), "",
                                 Span("c.py", 4, 5, 7, 30));
  auto kx = TensorVar("kx");
  auto program =
      Program::Make("test", {Fn("main", FunctionType::Opaque, {x}, {}, {}, Seq({cluster, Return({})})),
                             Fn("kernel", FunctionType::InCore, {kx}, {}, {Tensor16()}, Seq({Return({kx})}))});
  OutlineClusterScopesPass pass;
  Error e = PassError(pass, program);
  EXPECT_EQ(
      e.message(),
      "OutlineClusterScopes: in function 'main', the pl.spmd scope at c.py:5:9 shares its pl.cluster (at c.py:4:5) with other statements; a pl.spmd inside pl.cluster launches the whole cluster as its grid, so it must be the cluster's only statement. Move the other statements into the pl.spmd body or out of the cluster");
}

}  // namespace
}  // namespace pypto::test
