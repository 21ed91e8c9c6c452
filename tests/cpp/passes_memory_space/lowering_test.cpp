// Tensor-level kernels lowered by ConvertTensorToTileOps, FlattenTileNdTo2D
// and InferTileMemorySpace in pipeline order; the verifier passes after each.
#include <gtest/gtest.h>

#include "convert_tensor_to_tile_ops.h"
#include "flatten_tile_nd_to_2d.h"
#include "infer_tile_memory_space.h"
#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"

namespace pypto::test {
namespace {

ProgramPtr Lowered(const ProgramPtr& program, int64_t vec_capacity_bytes) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  pass::PassContext ctx;
  ProgramPtr tiles = passes::ConvertTensorToTileOps(program, vec_capacity_bytes);
  EXPECT_EQ(AllVerifierErrors(tiles), "");
  ProgramPtr flat = passes::FlattenTileNdTo2DPass().Run(tiles, ctx);
  EXPECT_EQ(AllVerifierErrors(flat), "");
  ProgramPtr placed = passes::InferTileMemorySpacePass().Run(flat, ctx);
  EXPECT_EQ(AllVerifierErrors(placed), "");
  return placed;
}

TEST(TileLowering, MatmulGoesThroughMatAndL0AndIsStoredFromAcc) {
  auto a = Var::Make("a", TensorType::Make({64, 64}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({64, 64}, DataType::FP16));
  VarPtr c;
  auto f = Function::Make("k", FunctionType::InCore, {a, b}, {ParamDirection::In, ParamDirection::In}, {a->type},
                          Seq({Let(c, "c", Op("tensor.matmul", {a, b})), Return({c})}));
  auto out = Lowered(Program::Make("test", {f}), 184 * 1024);
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], ret0_out: "
            "pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:\n"
            "    a_tile: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    b_tile: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    a_tile_Left: pl.Tile[[64, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(a_tile, "
            "target_memory=pl.Mem.Left)\n"
            "    b_tile_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(b_tile, "
            "target_memory=pl.Mem.Right)\n"
            "    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile_Left, b_tile_Right)\n"
            "    ret0: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(c, [0, 0], ret0_out)\n"
            "    return ret0\n");
}

TEST(TileLowering, The2048ChainBecomesAVecLoop) {
  auto x = Var::Make("x", TensorType::Make({2048, 2048}, DataType::FP32));
  auto out = Var::Make("out", x->type);
  VarPtr e, s, o;
  auto body = Seq({Let(e, "e", Op("tensor.exp", {x})), Let(s, "s", Op("tensor.add", {e, x})),
                   Let(o, "o", Op("tensor.assemble", {out, s, Tuple({0, 0})})), Return({o})});
  auto f =
      Function::Make("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out}, {x->type}, body);
  auto lowered = Lowered(Program::Make("test", {f}), 184 * 1024);
  EXPECT_EQ(PrintFunction(lowered->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> "
            "pl.Tensor[[2048, 2048], pl.FP32]:\n"
            "    for row, (out_iter,) in pl.range(0, 2048, 4, init_values=(out,), auto_tile_bytes_per_element=12, "
            "auto_tile_vec_capacity=188416):\n"
            "        x_tile: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [row, 0], [4, 2048], "
            "target_memory=pl.Mem.Vec)\n"
            "        e: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x_tile)\n"
            "        s: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.add(e, x_tile)\n"
            "        o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tile.store(s, [row, 0], out_iter)\n"
            "        out_final: pl.Tensor[[2048, 2048], pl.FP32] = pl.yield_(o)\n"
            "    return out_final\n");
}

}  // namespace
}  // namespace pypto::test
