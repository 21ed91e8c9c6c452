#include "flatten_tile_nd_to_2d.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/verifier_errors.h"

namespace pypto::test {
namespace {

using passes::FlattenTileNdTo2DPass;

ProgramPtr KernelProgram(std::vector<VarPtr> params, std::vector<ParamDirection> dirs, StmtPtr body,
                         std::vector<TypePtr> returns) {
  return Program::Make("test", {Function::Make("k", FunctionType::InCore, std::move(params), std::move(dirs),
                                               std::move(returns), std::move(body), Span("kernel.py", 1, 1))});
}

TEST(FlattenTileNdTo2D, DescribesItself) {
  FlattenTileNdTo2DPass pass;
  EXPECT_EQ(pass.name(), "FlattenTileNdTo2D");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::TileOps2D));
}

// A window of a 3D tensor: the load keeps its ND offsets and is reshaped at
// once; the compute runs on [32, 64]; the store gets its ND shape back.
TEST(FlattenTileNdTo2D, MergesLeadingDimsAndKeepsTheGmWindow) {
  auto x = TensorVar("x", {4, 16, 64});
  auto out = TensorVar("out", {4, 16, 64});
  VarPtr t, e, r;
  auto body = Seq({Let(t, "t", Op("tile.load", {x, Tuple({2, 0, 0}), Tuple({2, 16, 64})})),
                   Let(e, "e", Op("tile.exp", {t})), Let(r, "r", Op("tile.store", {e, Tuple({2, 0, 0}), out})),
                   Return({r})});
  auto program = KernelProgram({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type});
  EXPECT_EQ(PrintFunction(program->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[4, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 16, 64], pl.FP32]]) -> "
            "pl.Tensor[[4, 16, 64], pl.FP32]:\n"
            "    t: pl.Tile[[2, 16, 64], pl.FP32] = pl.tile.load(x, [2, 0, 0], [2, 16, 64])\n"
            "    e: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)\n"
            "    r: pl.Tensor[[4, 16, 64], pl.FP32] = pl.tile.store(e, [2, 0, 0], out)\n"
            "    return r\n");
  EXPECT_EQ(PrintFunction(RunPass<FlattenTileNdTo2DPass>(program)->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[4, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 16, 64], pl.FP32]]) -> "
            "pl.Tensor[[4, 16, 64], pl.FP32]:\n"
            "    t_nd: pl.Tile[[2, 16, 64], pl.FP32] = pl.tile.load(x, [2, 0, 0], [2, 16, 64])\n"
            "    t: pl.Tile[[32, 64], pl.FP32] = pl.tile.reshape(t_nd, [32, 64])\n"
            "    e: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)\n"
            "    e_nd: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e, [2, 16, 64])\n"
            "    r: pl.Tensor[[4, 16, 64], pl.FP32] = pl.tile.store(e_nd, [2, 0, 0], out)\n"
            "    return r\n");
}

TEST(FlattenTileNdTo2D, MakesRank1TilesOneRow) {
  auto v = TensorVar("v", {64});
  auto out = TensorVar("out", {64});
  VarPtr t, s, r;
  auto body = Seq({Let(t, "t", Op("tile.load", {v, Tuple({0}), Tuple({64})})),
                   Let(s, "s", Op("tile.adds", {t, Float(1.0)})),
                   Let(r, "r", Op("tile.store", {s, Tuple({0}), out})), Return({r})});
  auto program = KernelProgram({v, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type});
  EXPECT_EQ(PrintFunction(RunPass<FlattenTileNdTo2DPass>(program)->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, v: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> "
            "pl.Tensor[[64], pl.FP32]:\n"
            "    t_nd: pl.Tile[[64], pl.FP32] = pl.tile.load(v, [0], [64])\n"
            "    t: pl.Tile[[1, 64], pl.FP32] = pl.tile.reshape(t_nd, [1, 64])\n"
            "    s: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)\n"
            "    s_nd: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s, [64])\n"
            "    r: pl.Tensor[[64], pl.FP32] = pl.tile.store(s_nd, [0], out)\n"
            "    return r\n");
}

TEST(FlattenTileNdTo2D, CreatesScratchTilesIn2DAndRetypesLoopCarries) {
  auto x = TensorVar("x", {2, 8, 32});
  auto out = TensorVar("out", {2, 8, 32});
  auto i = IndexVar("i");
  VarPtr zero, t, sum, r;
  auto init = Let(zero, "zero", Op("tile.full", {Tuple({2, 8, 32}), Float(0.0)}, {{"dtype", DataType::FP32}}));
  auto acc = IterArg::Make("acc", zero->type, zero);
  auto loop_body = Seq({Let(t, "t", Op("tile.load", {x, Tuple({0, 0, 0}), Tuple({2, 8, 32})})),
                        Let(sum, "sum", Op("tile.add", {acc, t})), Yield({sum})});
  auto total = Var::Make("total", zero->type);
  auto loop = ForStmt::Make(i, Int(0), Int(3), Int(1), {acc}, loop_body, {total});
  auto body = Seq({init, loop, Let(r, "r", Op("tile.store", {total, Tuple({0, 0, 0}), out})), Return({r})});
  auto program = KernelProgram({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type});
  EXPECT_EQ(PrintFunction(RunPass<FlattenTileNdTo2DPass>(program)->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[2, 8, 32], pl.FP32], out: pl.Out[pl.Tensor[[2, 8, 32], pl.FP32]]) -> "
            "pl.Tensor[[2, 8, 32], pl.FP32]:\n"
            "    zero: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 32], 0.0, dtype=pl.FP32)\n"
            "    for i, (acc,) in pl.range(0, 3, 1, init_values=(zero,)):\n"
            "        t_nd: pl.Tile[[2, 8, 32], pl.FP32] = pl.tile.load(x, [0, 0, 0], [2, 8, 32])\n"
            "        t: pl.Tile[[16, 32], pl.FP32] = pl.tile.reshape(t_nd, [16, 32])\n"
            "        sum: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)\n"
            "        total: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(sum)\n"
            "    total_nd: pl.Tile[[2, 8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(total, [2, 8, 32])\n"
            "    r: pl.Tensor[[2, 8, 32], pl.FP32] = pl.tile.store(total_nd, [0, 0, 0], out)\n"
            "    return r\n");
}

TEST(FlattenTileNdTo2D, LeavesTwoDimensionalCodeAsItIs) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  VarPtr t, e, r;
  auto body =
      Seq({Let(t, "t", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})})),
           Let(e, "e", Op("tile.exp", {t})), Let(r, "r", Op("tile.store", {e, Tuple({0, 0}), out})), Return({r})});
  auto program = KernelProgram({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type});
  auto once = RunPass<FlattenTileNdTo2DPass>(program);
  EXPECT_SAME_IR(once, program);
  EXPECT_SAME_IR(RunPass<FlattenTileNdTo2DPass>(once), once);
}

TEST(FlattenTileNdTo2D, RejectsADynamicDim) {
  auto m = IndexVar("m");
  auto x = Var::Make("x", TensorType::Make({m, Int(4), Int(8)}, DataType::FP32));
  VarPtr t, e;
  auto body = Seq({Let(t, "t", Op("tile.load", {x, Tuple({0, 0, 0}), MakeTuple::Make({m, Int(4), Int(8)})})),
                   Let(e, "e", Op("tile.exp", {t})), Return({})});
  auto program = KernelProgram({m, x}, {ParamDirection::In, ParamDirection::In}, body, {});
  Error err = PassError<FlattenTileNdTo2DPass>(program);
  EXPECT_EQ(err.kind(), ErrorKind::kValue);
  EXPECT_EQ(err.message(),
            "FlattenTileNdTo2D: in function 'k', tile 't' has shape [m, 4, 8] with a dynamic dim, so its leading "
            "dims cannot be merged into one static row count; give the tile static extents (load a fixed-size "
            "window, with valid_shape for the dynamic part)");
}

TEST(FlattenTileNdTo2D, RejectsADimIndexedOpOnAnNdTile) {
  auto x = TensorVar("x", {2, 8, 32});
  VarPtr t, tt;
  auto load = Let(t, "t", Op("tile.load", {x, Tuple({0, 0, 0}), Tuple({2, 8, 32})}));
  auto transpose = Let(tt, "tt", Op("tile.transpose", {t, Int(1), Int(2)}));
  auto program = KernelProgram({x}, {ParamDirection::In}, Seq({load, transpose, Return({})}), {});
  // Built before the pass, the transpose still sees the 3D tile.
  Error err = PassError<FlattenTileNdTo2DPass>(program);
  EXPECT_EQ(err.message(),
            "FlattenTileNdTo2D: in function 'k', tile.transpose works on tile 't' of shape [2, 8, 32] along its dims, "
            "which its 2D form [rows, cols] no longer has; apply it to the tensor before loading (slice the tensor "
            "window you need), or load 2D tiles");
}

}  // namespace
}  // namespace pypto::test
