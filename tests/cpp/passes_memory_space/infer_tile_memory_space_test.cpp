#include "infer_tile_memory_space.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/verifier_errors.h"

namespace pypto::test {
namespace {

using passes::InferTileMemorySpacePass;

// The full verifier, type checking included: every call here is a registered
// op.
ProgramPtr InferredFromAnyInput(const ProgramPtr& program) {
  InferTileMemorySpacePass pass;
  pass::PassContext ctx;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_EQ(AllVerifierErrors(out), "");
  return out;
}

AttrValue Space(MemorySpace space) { return EnumAttr::Of(space); }

ExprPtr Load(const VarPtr& tensor, std::vector<int64_t> shape, Attrs kwargs = {}) {
  return Op("tile.load", {tensor, Tuple(std::vector<int64_t>(shape.size(), 0)), Tuple(shape)}, std::move(kwargs));
}

// c = a @ b with a, b [64, 64] FP16 and c stored into out (FP32).
struct MatmulCase {
  VarPtr a = TensorVar("a", {64, 64}, DataType::FP16);
  VarPtr b = TensorVar("b", {64, 64}, DataType::FP16);
  VarPtr out = TensorVar("out", {64, 64}, DataType::FP32);
};

TEST(InferTileMemorySpace, DescribesItself) {
  InferTileMemorySpacePass pass;
  EXPECT_EQ(pass.name(), "InferTileMemorySpace");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SSAForm));
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::TileMemoryInferred));
}

TEST(InferTileMemorySpace, LoadsMatmulOperandsToMatAndMovesThemIntoLeftAndRight) {
  MatmulCase m;
  VarPtr ta, tb, c, r;
  auto body = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                   Let(c, "c", Op("tile.matmul", {ta, tb})), Let(r, "r", Op("tile.store", {c, Tuple({0, 0}), m.out})),
                   Return({r})});
  auto program = Program::Make(
      "test",
      {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {m.out->type})});
  EXPECT_EQ(PrintFunction(program->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], "
            "pl.FP16], out: "
            "pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
            "    ta: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(a, [0, 0], [64, 64])\n"
            "    tb: pl.Tile[[64, 64], pl.FP16] = pl.tile.load(b, [0, 0], [64, 64])\n"
            "    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)\n"
            "    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)\n"
            "    return r\n");
  auto out = RunPass<InferTileMemorySpacePass>(program);

  VarPtr ea, eb, ea_left, eb_right, ec, er;
  auto expected_body =
      Seq({Let(ea, "ta", Load(m.a, {64, 64}, {{"target_memory", Space(MemorySpace::Mat)}})),
           Let(eb, "tb", Load(m.b, {64, 64}, {{"target_memory", Space(MemorySpace::Mat)}})),
           Let(ea_left, "ta_Left", Op("tile.move", {ea}, {{"target_memory", Space(MemorySpace::Left)}})),
           Let(eb_right, "tb_Right", Op("tile.move", {eb}, {{"target_memory", Space(MemorySpace::Right)}})),
           Let(ec, "c", Op("tile.matmul", {ea_left, eb_right})),
           Let(er, "r", Op("tile.store", {ec, Tuple({0, 0}), m.out})), Return({er})});
  auto expected =
      Program::Make("test", {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out},
                                    expected_body, {m.out->type})});
  EXPECT_SAME_IR(out, expected);
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], "
            "pl.FP16], out: "
            "pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
            "    ta: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, "
            "0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    tb: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, "
            "0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    ta_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(ta, "
            "target_memory=pl.Mem.Left)\n"
            "    tb_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = "
            "pl.tile.move(tb, target_memory=pl.Mem.Right)\n"
            "    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_Left, "
            "tb_Right)\n"
            "    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)\n"
            "    return r\n");
}

TEST(InferTileMemorySpace, VectorCodeDefaultsToVec) {
  auto x = TensorVar("x", {32, 64}, DataType::FP32);
  auto y = TensorVar("y", {32, 64}, DataType::FP32);
  VarPtr t, s, r;
  auto body = Seq({Let(t, "t", Load(x, {32, 64})), Let(s, "s", Op("tile.add", {t, t})),
                   Let(r, "r", Op("tile.store", {s, Tuple({0, 0}), y})), Return({r})});
  auto program = Program::Make(
      "test", {Kernel({x, y}, {ParamDirection::In, ParamDirection::Out}, body, {y->type}, "k", FunctionType::AIV)});
  auto out = RunPass<InferTileMemorySpacePass>(program);
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function(type=pl.FunctionType.AIV)\n"
            "def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Out[pl.Tensor[[32, "
            "64], pl.FP32]]) -> "
            "pl.Tensor[[32, 64], pl.FP32]:\n"
            "    t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], "
            "[32, 64], "
            "target_memory=pl.Mem.Vec)\n"
            "    s: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)\n"
            "    r: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(s, [0, 0], y)\n"
            "    return r\n");
}

TEST(InferTileMemorySpace, MovesAnOperandOncePerBlock) {
  MatmulCase m;
  VarPtr ta, tb, c1, c2, sum, r;
  auto body = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                   Let(c1, "c1", Op("tile.matmul", {ta, tb})), Let(c2, "c2", Op("tile.matmul", {ta, tb})),
                   Let(sum, "sum", Op("tile.add", {c1, c2})),
                   Let(r, "r", Op("tile.store", {sum, Tuple({0, 0}), m.out})), Return({r})});
  auto program = Program::Make(
      "test",
      {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {m.out->type})});
  auto out = RunPass<InferTileMemorySpacePass>(program);
  std::string printed = PrintFunction(out->functions[0]);
  EXPECT_NE(printed.find("    c1: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = "
                         "pl.tile.matmul(ta_Left, tb_Right)\n"
                         "    c2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = "
                         "pl.tile.matmul(ta_Left, tb_Right)\n"
                         "    c1_Vec: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
                         "pl.tile.move(c1, "
                         "target_memory=pl.Mem.Vec)\n"
                         "    c2_Vec: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
                         "pl.tile.move(c2, "
                         "target_memory=pl.Mem.Vec)\n"
                         "    sum: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
                         "pl.tile.add(c1_Vec, c2_Vec)\n"),
            std::string::npos)
      << printed;
  EXPECT_EQ(Flatten(out->functions[0]->body).size(),
            11u);  // 7 statements + 2 L0 moves + 2 Acc->Vec moves
}

TEST(InferTileMemorySpace, AccumulatorLoopCarriesAcc) {
  MatmulCase m;
  auto i = IndexVar("i");
  VarPtr acc0, ta, tb, next, r;
  auto init = Let(acc0, "acc0", Op("tile.create", {Tuple({64, 64})}, {{"dtype", DataType::FP32}}));
  auto acc = IterArg::Make("acc", acc0->type, acc0);
  auto loop_body = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                        Let(next, "next", Op("tile.matmul_acc", {acc, ta, tb})), Yield({next})});
  auto total = Var::Make("total", acc0->type);
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, loop_body, {total});
  auto body = Seq({init, loop, Let(r, "r", Op("tile.store", {total, Tuple({0, 0}), m.out})), Return({r})});
  auto program = Program::Make(
      "test",
      {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {m.out->type})});
  auto out = RunPass<InferTileMemorySpacePass>(program);
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], "
            "pl.FP16], out: "
            "pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
            "    acc0: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, "
            "64], dtype=pl.FP32, "
            "target_memory=pl.Mem.Acc)\n"
            // The loads do not depend on i: they move before the loop.
            "    ta: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, "
            "[0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    tb: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, "
            "[0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    for i, (acc,) in pl.range(0, 4, 1, init_values=(acc0,)):\n"
            "        ta_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = "
            "pl.tile.move(ta, target_memory=pl.Mem.Left)\n"
            "        tb_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = "
            "pl.tile.move(tb, "
            "target_memory=pl.Mem.Right)\n"
            "        next: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = "
            "pl.tile.matmul_acc(acc, ta_Left, tb_Right)\n"
            "        total: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = "
            "pl.yield_(next)\n"
            "    r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(total, [0, 0], "
            "out)\n"
            "    return r\n");
}

TEST(InferTileMemorySpace, MovesAYieldedValueIntoTheCarriedSpace) {
  MatmulCase m;
  auto i = IndexVar("i");
  VarPtr ta, tb, init, prod, next, r;
  auto pre = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                  Let(init, "init", Load(m.out, {64, 64}))});
  auto acc = IterArg::Make("acc", init->type, init);
  auto loop_body = Seq(
      {Let(prod, "prod", Op("tile.matmul", {ta, tb})), Let(next, "next", Op("tile.add", {acc, acc})), Yield({prod})});
  auto total = Var::Make("total", init->type);
  auto loop = ForStmt::Make(i, Int(0), Int(2), Int(1), {acc}, loop_body, {total});
  auto body = Seq({pre, loop, Let(r, "r", Op("tile.store", {total, Tuple({0, 0}), m.out})), Return({r})});
  // The carried value is read by a vector op (Vec) but produced by matmul
  // (Acc).
  auto program =
      Program::Make("test", {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::InOut},
                                    body, {m.out->type})});
  auto out = RunPass<InferTileMemorySpacePass>(program);
  std::string printed = PrintFunction(out->functions[0]);
  EXPECT_NE(printed.find("    init: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = "
                         "pl.tile.load(out, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Vec)\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("        prod: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] "
                         "= pl.tile.matmul(ta_Left, tb_Right)\n"
                         "        next: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] "
                         "= pl.tile.add(acc, acc)\n"
                         "        prod_Vec: pl.Tile[[64, 64], pl.FP32, "
                         "pl.Mem.Vec] = pl.tile.move(prod, "
                         "target_memory=pl.Mem.Vec)\n"
                         "        total: pl.Tile[[64, 64], pl.FP32, "
                         "pl.Mem.Vec] = pl.yield_(prod_Vec)\n"),
            std::string::npos)
      << printed;
}

// An if-phi takes the space of the then-branch's value; the else branch's
// value is moved into it before its yield.
TEST(InferTileMemorySpace, MovesAnElseValueIntoTheSpaceOfTheIfResult) {
  MatmulCase m;
  auto flag = ScalarVar("flag", DataType::BOOL);
  VarPtr ta, tb, base, prod, picked_then, r;
  auto pre = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                  Let(base, "base", Load(m.out, {64, 64}))});
  auto then_body = Seq({Let(picked_then, "twice", Op("tile.add", {base, base})), Yield({picked_then})});
  auto else_body = Seq({Let(prod, "prod", Op("tile.matmul", {ta, tb})), Yield({prod})});
  auto picked = Var::Make("picked", TileType::Make({64, 64}, DataType::FP32, MemorySpace::Vec));
  auto branch = IfStmt::Make(flag, then_body, else_body, {picked});
  auto body = Seq({pre, branch, Let(r, "r", Op("tile.store", {picked, Tuple({0, 0}), m.out})), Return({r})});
  auto program =
      Program::Make("test", {Kernel({m.a, m.b, m.out, flag},
                                    {ParamDirection::In, ParamDirection::In, ParamDirection::InOut, ParamDirection::In},
                                    body, {m.out->type})});
  // The input's phi already demands Vec while one arm yields an Acc result:
  // the verifier rejects it until the pass inserts the move, so only the output is verified.
  std::string printed = PrintFunction(InferredFromAnyInput(program)->functions[0]);
  EXPECT_NE(printed.find("    if flag:\n"
                         "        twice: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(base, base)\n"
                         "        picked: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(twice)\n"
                         "    else:\n"
                         "        ta_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(ta, "
                         "target_memory=pl.Mem.Left)\n"
                         "        tb_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(tb, "
                         "target_memory=pl.Mem.Right)\n"
                         "        prod: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_Left, tb_Right)\n"
                         "        prod_Vec: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(prod, "
                         "target_memory=pl.Mem.Vec)\n"
                         "        picked: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(prod_Vec)\n"),
            std::string::npos)
      << printed;
}

TEST(InferTileMemorySpace, KeepsAnExplicitTargetMemoryAndMovesFromIt) {
  MatmulCase m;
  VarPtr ta, tb, c, r;
  auto body = Seq({Let(ta, "ta", Load(m.a, {64, 64}, {{"target_memory", Space(MemorySpace::Vec)}})),
                   Let(tb, "tb", Load(m.b, {64, 64})), Let(c, "c", Op("tile.matmul", {ta, tb})),
                   Let(r, "r", Op("tile.store", {c, Tuple({0, 0}), m.out})), Return({r})});
  auto program = Program::Make(
      "test",
      {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {m.out->type})});
  std::string printed = PrintFunction(RunPass<InferTileMemorySpacePass>(program)->functions[0]);
  EXPECT_NE(printed.find("    ta: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = "
                         "pl.tile.load(a, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Vec)\n"),
            std::string::npos)
      << printed;
  // Vec reaches Left only through Mat: a core transfer to the cube core, then a move.
  EXPECT_NE(printed.find("    ta_Mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.move(ta, "
                         "target_memory=pl.Mem.Mat)\n"
                         "    ta_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(ta_Mat, "
                         "target_memory=pl.Mem.Left)\n"),
            std::string::npos)
      << printed;
}

// A matmul result cast for another matmul: Acc -> Vec for the cast (a core
// transfer), then the cast's result Vec -> Mat -> Left.
TEST(InferTileMemorySpace, RoutesAMoveThroughIntermediateSpaces) {
  MatmulCase m;
  VarPtr ta, tb, c, d, e, r;
  auto body = Seq({Let(ta, "ta", Load(m.a, {64, 64})), Let(tb, "tb", Load(m.b, {64, 64})),
                   Let(c, "c", Op("tile.matmul", {ta, tb})), Let(d, "d", Op("tile.cast", {c}, {{"target_type", DataType::FP16}})),
                   Let(e, "e", Op("tile.matmul", {d, tb})), Let(r, "r", Op("tile.store", {e, Tuple({0, 0}), m.out})),
                   Return({r})});
  auto program = Program::Make(
      "test",
      {Kernel({m.a, m.b, m.out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {m.out->type})});
  std::string printed = PrintFunction(RunPass<InferTileMemorySpacePass>(program)->functions[0]);
  EXPECT_NE(printed.find("    c_Vec: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)\n"
                         "    d: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c_Vec, target_type=pl.FP16)\n"
                         "    d_Mat: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.move(d, target_memory=pl.Mem.Mat)\n"
                         "    d_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(d_Mat, "
                         "target_memory=pl.Mem.Left)\n"),
            std::string::npos)
      << printed;
}

// Nothing leaves Left: a vector op on a tile the user moved there has no path.
TEST(InferTileMemorySpace, RejectsAMoveThePlatformHasNoPathFor) {
  MatmulCase m;
  VarPtr ta, tl, e;
  auto body = Seq({Let(ta, "ta", Load(m.a, {64, 64}, {{"target_memory", Space(MemorySpace::Mat)}})),
                   Let(tl, "tl", Op("tile.move", {ta}, {{"target_memory", Space(MemorySpace::Left)}})),
                   Let(e, "e", Op("tile.exp", {tl})), Return({})});
  auto program = Program::Make("test", {Kernel({m.a}, {ParamDirection::In}, body, {})});
  EXPECT_EQ(PassError<InferTileMemorySpacePass>(program).message(),
            "InferTileMemorySpace: in function 'k', argument 'tile' of tile.exp needs 'tl' in Vec, but it is in Left "
            "and platform 'a2a3sim' has no way from Left to Vec (its moves: DDR->Vec, DDR->Mat, Vec->DDR, Mat->Left, "
            "Mat->Right, Mat->Bias, Acc->Mat, Acc->DDR; core transfers: Acc->Vec, Vec->Mat); produce the value where "
            "it can reach Vec, or store it to a tensor with tile.store and tile.load it back");
}

// for n in 0..256 step 64: out[:, n:n+64] = a @ b[:, n:n+64]. The load of a
// does not depend on n and a is never written: it is loaded into Mat once,
// before the loop; the load of b's columns and both L0 moves stay inside.
TEST(InferTileMemorySpace, HoistsALoopInvariantMatmulOperandLoad) {
  auto a = TensorVar("a", {64, 64}, DataType::FP16);
  auto b = TensorVar("b", {64, 256}, DataType::FP16);
  auto out = TensorVar("out", {64, 256}, DataType::FP32);
  auto n = IndexVar("n");
  auto acc = IterArg::Make("acc", out->type, out);
  auto done = Var::Make("done", out->type);
  VarPtr ta, tb, c, r;
  auto loop_body = Seq({Let(ta, "ta", Load(a, {64, 64})),
                        Let(tb, "tb", Op("tile.load", {b, MakeTuple::Make({Int(0), n}), Tuple({64, 64})})),
                        Let(c, "c", Op("tile.matmul", {ta, tb})),
                        Let(r, "r", Op("tile.store", {c, MakeTuple::Make({Int(0), n}), acc})), Yield({r})});
  auto body = Seq({ForStmt::Make(n, Int(0), Int(256), Int(64), {acc}, loop_body, {done}), Return({done})});
  auto program = Program::Make(
      "test", {Kernel({a, b, out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, body, {out->type})});
  EXPECT_EQ(PrintFunction(RunPass<InferTileMemorySpacePass>(program)->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 256], pl.FP16], out: "
            "pl.Out[pl.Tensor[[64, 256], pl.FP32]]) -> pl.Tensor[[64, 256], pl.FP32]:\n"
            "    ta: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    for n, (acc,) in pl.range(0, 256, 64, init_values=(out,)):\n"
            "        tb: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, n], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "        ta_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(ta, target_memory=pl.Mem.Left)\n"
            "        tb_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(tb, "
            "target_memory=pl.Mem.Right)\n"
            "        c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_Left, tb_Right)\n"
            "        r: pl.Tensor[[64, 256], pl.FP32] = pl.tile.store(c, [0, n], acc)\n"
            "        done: pl.Tensor[[64, 256], pl.FP32] = pl.yield_(r)\n"
            "    return done\n");
}

// The same loop storing into a itself: a load of a may see an earlier
// iteration's store, so it stays in the loop.
TEST(InferTileMemorySpace, KeepsALoadOfATensorTheLoopWrites) {
  auto a = TensorVar("a", {64, 64}, DataType::FP16);
  auto b = TensorVar("b", {64, 64}, DataType::FP16);
  auto n = IndexVar("n");
  VarPtr ta, tb, c, h, r;
  auto loop_body = Seq({Let(ta, "ta", Load(a, {64, 64})), Let(tb, "tb", Load(b, {64, 64})),
                        Let(c, "c", Op("tile.matmul", {ta, tb})),
                        Let(h, "h", Op("tile.cast", {c}, {{"target_type", DataType::FP16}})),
                        Let(r, "r", Op("tile.store", {h, Tuple({0, 0}), a}))});
  auto body = Seq({ForStmt::Make(n, Int(0), Int(4), Int(1), {}, loop_body, {}), Return({})});
  auto program =
      Program::Make("test", {Kernel({a, b}, {ParamDirection::InOut, ParamDirection::In}, body, {})});
  std::string printed = PrintFunction(RunPass<InferTileMemorySpacePass>(program)->functions[0]);
  EXPECT_NE(printed.find("    tb: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Mat)\n"
                         "    for n in pl.range(0, 4, 1):\n"
                         "        ta: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Mat)\n"),
            std::string::npos)
      << printed;
}

TEST(InferTileMemorySpace, LeavesOrchestrationFunctionsAloneAndIsIdempotent) {
  auto x = TensorVar("x", {32, 64}, DataType::FP32);
  auto y = TensorVar("y", {32, 64}, DataType::FP32);
  VarPtr t, r;
  auto body = Seq({Let(t, "t", Load(x, {32, 64})), Let(r, "r", Op("tile.store", {t, Tuple({0, 0}), y})), Return({r})});
  auto kernel = Kernel({x, y}, {ParamDirection::In, ParamDirection::Out}, body, {y->type});
  auto a = TensorVar("a", {32, 64}, DataType::FP32);
  auto orch = Function::Make("main", FunctionType::Orchestration, {a}, {ParamDirection::In}, {}, Seq({Return({})}));
  auto program = Program::Make("test", {kernel, orch});
  auto once = RunPass<InferTileMemorySpacePass>(program);
  EXPECT_EQ(once->functions[1], orch);
  EXPECT_SAME_IR(RunPass<InferTileMemorySpacePass>(once), once);
}

TEST(InferTileMemorySpace, RejectsATileParameterWithoutASpace) {
  auto t = Var::Make("t", TileType::Make({16, 16}, DataType::FP32), Span("kernel.py", 4, 11));
  auto y = TensorVar("y", {16, 16}, DataType::FP32);
  VarPtr r;
  auto body = Seq({Let(r, "r", Op("tile.store", {t, Tuple({0, 0}), y})), Return({r})});
  auto program = Program::Make("test", {Kernel({t, y}, {ParamDirection::In, ParamDirection::Out}, body, {y->type})});
  Error e = PassError<InferTileMemorySpacePass>(program);
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.span(), Span("kernel.py", 4, 11));
  EXPECT_EQ(e.message(),
            "InferTileMemorySpace: parameter 't' of function 'k' "
            "is a tile without a memory space; a caller's tile "
            "arrives in a fixed space, so declare it in the "
            "parameter's type (for example pl.Tile[[64, 64], "
            "pl.FP32, pl.Mem.Vec])");
}

TEST(InferTileMemorySpace, RejectsANestedOperandThatNeedsAMove) {
  MatmulCase m;
  auto ta = Var::Make("ta", TileType::Make({64, 64}, DataType::FP16, MemorySpace::Mat));
  auto tb = Var::Make("tb", TileType::Make({64, 64}, DataType::FP16, MemorySpace::Right));
  auto nested = Op("tile.move", {ta}, {{"target_memory", Space(MemorySpace::Mat)}});
  VarPtr c;
  auto body = Seq({Let(c, "c", Op("tile.matmul", {nested, tb})), Return({})});
  auto program = Program::Make("test", {Kernel({ta, tb}, {ParamDirection::In, ParamDirection::In}, body, {})});
  Error e = PassError<InferTileMemorySpacePass>(program);
  EXPECT_EQ(e.message(),
            "InferTileMemorySpace: in function 'k', argument 'lhs' of "
            "tile.matmul is a nested expression in the "
            "wrong memory space, and a tile.move can only be placed before a "
            "variable; run FlattenCallExpr first so "
            "that every operand is a variable");
}

}  // namespace
}  // namespace pypto::test
