#include "convert_tensor_to_tile_ops.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"
#include "support/verifier_errors.h"

namespace pypto::test {
namespace {

constexpr int64_t kA2A3Vec = 184 * 1024;
constexpr int64_t kA5Vec = 240 * 1024;

ProgramPtr Converted(const ProgramPtr& program, int64_t capacity = kA2A3Vec) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  ProgramPtr out = passes::ConvertTensorToTileOps(program, capacity);
  EXPECT_EQ(AllVerifierErrors(out), "");
  return out;
}

Error ConvertError(const ProgramPtr& program, int64_t capacity = kA2A3Vec) {
  try {
    passes::ConvertTensorToTileOps(program, capacity);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "ConvertTensorToTileOps accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}

// The reference example: a returned product gets an Out param, and the
// orchestration caller creates the tensor it passes for it.
TEST(ConvertTensorToTileOps, LoadsComputesAndStoresAReturnIntoANewOutParam) {
  auto a = TensorVar("a", {128, 128});
  auto b = TensorVar("b", {128, 128});
  VarPtr c;
  auto kernel = Kernel({a, b}, {ParamDirection::In, ParamDirection::In},
                       Seq({Let(c, "c", Op("tensor.mul", {a, b})), Return({c})}), {a->type});
  auto x = TensorVar("x", {128, 128});
  auto y = TensorVar("y", {128, 128});
  auto r = Var::Make("r", x->type);
  auto call = Call::Make(GlobalVar::Make("k"), {x, y}, {}, x->type);
  auto main = Function::Make("main", FunctionType::Orchestration, {x, y}, {ParamDirection::In, ParamDirection::In},
                             {x->type}, Seq({Assign(r, call), Return({r})}));
  // Three [128, 128] FP32 tiles take 192 KiB: whole in a5's 240 KiB of Vec
  // (a2a3's 184 KiB would tile the chain into two row blocks).
  auto out = Converted(Program::Make("test", {kernel, main}), kA5Vec);

  auto ea = TensorVar("a", {128, 128});
  auto eb = TensorVar("b", {128, 128});
  auto ret_out = TensorVar("ret0_out", {128, 128});
  VarPtr ta, tb, tc, stored;
  auto expected_kernel =
      Kernel({ea, eb, ret_out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out},
             Seq({Let(ta, "a_tile", Op("tile.load", {ea, Tuple({0, 0}), Tuple({128, 128})})),
                  Let(tb, "b_tile", Op("tile.load", {eb, Tuple({0, 0}), Tuple({128, 128})})),
                  Let(tc, "c", Op("tile.mul", {ta, tb})),
                  Let(stored, "ret0", Op("tile.store", {tc, Tuple({0, 0}), ret_out})), Return({stored})}),
             {a->type});
  EXPECT_SAME_IR(out->functions[0], expected_kernel);
  EXPECT_EQ(Printed(out, "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32], ret0_out: "
            "pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:\n"
            "    a_tile: pl.Tile[[128, 128], pl.FP32] = pl.tile.load(a, [0, 0], [128, 128])\n"
            "    b_tile: pl.Tile[[128, 128], pl.FP32] = pl.tile.load(b, [0, 0], [128, 128])\n"
            "    c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mul(a_tile, b_tile)\n"
            "    ret0: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], ret0_out)\n"
            "    return ret0\n");
  EXPECT_EQ(Printed(out, "main"),
            "@pl.function(type=pl.FunctionType.Orchestration)\n"
            "def main(self, x: pl.Tensor[[128, 128], pl.FP32], y: pl.Tensor[[128, 128], pl.FP32]) -> "
            "pl.Tensor[[128, 128], pl.FP32]:\n"
            "    ret0_out: pl.Tensor[[128, 128], pl.FP32] = pl.tensor.create([128, 128], dtype=pl.FP32)\n"
            "    r: pl.Tensor[[128, 128], pl.FP32] = self.k(x, y, ret0_out)\n"
            "    return r\n");
}

// An element-wise chain stays in tiles: one load, one store, nothing in between.
TEST(ConvertTensorToTileOps, FusesAChainAndMakesTheAssembledParamOut) {
  auto x = TensorVar("x", {64, 64});
  auto out = TensorVar("out", {64, 64});
  VarPtr e, s, o;
  auto body = Seq({Let(e, "e", Op("tensor.exp", {x})), Let(s, "s", Op("tensor.adds", {e, Float(1.0)})),
                   Let(o, "o", Op("tensor.assemble", {out, s, Tuple({0, 0})})), Return({o})});
  auto program = Program::Make("test", {Kernel({x, out}, {ParamDirection::In, ParamDirection::In}, body, {out->type})});
  EXPECT_EQ(Printed(Converted(program), "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> "
            "pl.Tensor[[64, 64], pl.FP32]:\n"
            "    x_tile: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(x, [0, 0], [64, 64])\n"
            "    e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x_tile)\n"
            "    s: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(e, 1.0)\n"
            "    o: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)\n"
            "    return o\n");
}

// A parameter both read by a compute op and assembled into becomes InOut.
TEST(ConvertTensorToTileOps, MakesAParamThatIsReadAndWrittenInOut) {
  auto acc = TensorVar("acc", {32, 32});
  auto x = TensorVar("x", {32, 32});
  VarPtr s, o;
  auto body = Seq({Let(s, "s", Op("tensor.add", {acc, x})),
                   Let(o, "o", Op("tensor.assemble", {acc, s, Tuple({0, 0})})), Return({o})});
  auto program = Program::Make("test", {Kernel({acc, x}, {ParamDirection::In, ParamDirection::In}, body, {acc->type})});
  auto out = Converted(program);
  EXPECT_EQ(out->functions[0]->param_directions,
            (std::vector<ParamDirection>{ParamDirection::InOut, ParamDirection::In}));
  EXPECT_EQ(Printed(out, "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, acc: pl.InOut[pl.Tensor[[32, 32], pl.FP32]], x: pl.Tensor[[32, 32], pl.FP32]) -> "
            "pl.Tensor[[32, 32], pl.FP32]:\n"
            "    acc_tile: pl.Tile[[32, 32], pl.FP32] = pl.tile.load(acc, [0, 0], [32, 32])\n"
            "    x_tile: pl.Tile[[32, 32], pl.FP32] = pl.tile.load(x, [0, 0], [32, 32])\n"
            "    s: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc_tile, x_tile)\n"
            "    o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(s, [0, 0], acc)\n"
            "    return o\n");
}

TEST(ConvertTensorToTileOps, BroadcastsRowOperandsAndGivesReductionsAScratchTile) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  VarPtr m, d, e, s, y, o;
  auto body = Seq({Let(m, "m", Op("tensor.row_max", {x})), Let(d, "d", Op("tensor.sub", {x, m})),
                   Let(e, "e", Op("tensor.exp", {d})), Let(s, "s", Op("tensor.row_sum", {e})),
                   Let(y, "y", Op("tensor.div", {e, s})),
                   Let(o, "o", Op("tensor.assemble", {out, y, Tuple({0, 0})})), Return({o})});
  auto program =
      Program::Make("test", {Kernel({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type})});
  EXPECT_EQ(Printed(Converted(program), "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
            "pl.Tensor[[16, 64], pl.FP32]:\n"
            "    x_tile: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])\n"
            "    tmp: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32)\n"
            "    m: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(x_tile, tmp)\n"
            "    d: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(x_tile, m)\n"
            "    e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(d)\n"
            "    tmp_1: pl.Tile[[16, 64], pl.FP32] = pl.tile.create([16, 64], dtype=pl.FP32)\n"
            "    s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e, tmp_1)\n"
            "    y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(e, s)\n"
            "    o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y, [0, 0], out)\n"
            "    return o\n");
}

TEST(ConvertTensorToTileOps, ExpandsABroadcastLeftOperandOfANonCommutativeOp) {
  auto x = TensorVar("x", {16, 64});
  auto c = TensorVar("c", {1, 64});
  VarPtr a, b;
  auto body = Seq({Let(a, "a", Op("tensor.sub", {c, x})), Let(b, "b", Op("tensor.add", {c, x})), Return({a, b})});
  auto program =
      Program::Make("test", {Kernel({x, c}, {ParamDirection::In, ParamDirection::In}, body, {x->type, x->type})});
  std::string printed = Printed(Converted(program), "k");
  EXPECT_NE(printed.find("    c_tile_expanded: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand(x_tile, "
                         "c_tile)\n"
                         "    a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sub(c_tile_expanded, x_tile)\n"
                         "    b: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(x_tile, c_tile)\n"
                         "    ret0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(a, [0, 0], ret0_out)\n"
                         "    ret1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(b, [0, 0], ret1_out)\n"
                         "    return ret0, ret1\n"),
            std::string::npos)
      << printed;
}

// A hand-chunked loop: slices load windows, assembles store them, the
// output tensor stays the loop-carried value.
TEST(ConvertTensorToTileOps, LowersSlicesAndAssemblesInsideALoop) {
  auto x = TensorVar("x", {64, 32});
  auto out = TensorVar("out", {64, 32});
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", out->type, out);
  VarPtr s, e, o;
  auto loop_body = Seq({Let(s, "s", Op("tensor.slice", {x, Tuple({16, 32}), MakeTuple::Make({i, Int(0)})})),
                        Let(e, "e", Op("tensor.exp", {s})),
                        Let(o, "o", Op("tensor.assemble", {acc, e, MakeTuple::Make({i, Int(0)})})), Yield({o})});
  auto result = Var::Make("result", out->type);
  auto loop = ForStmt::Make(i, Int(0), Int(64), Int(16), {acc}, loop_body, {result});
  auto program = Program::Make(
      "test", {Kernel({x, out}, {ParamDirection::In, ParamDirection::In}, Seq({loop, Return({result})}), {out->type})});
  EXPECT_EQ(Printed(Converted(program), "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> "
            "pl.Tensor[[64, 32], pl.FP32]:\n"
            "    for i, (acc,) in pl.range(0, 64, 16, init_values=(out,)):\n"
            "        s: pl.Tile[[16, 32], pl.FP32] = pl.tile.load(x, [i, 0], [16, 32])\n"
            "        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)\n"
            "        o: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(e, [i, 0], acc)\n"
            "        result: pl.Tensor[[64, 32], pl.FP32] = pl.yield_(o)\n"
            "    return result\n");
}

// out[:] = exp(x) + x on 2048 x 2048 FP32: three live tiles of 4 bytes per
// element need 48 MiB, so the chain runs in blocks of 2^k rows where
// 2^k * 2048 * 12 bytes fit in a2a3's 184 KiB of Vec: 4 rows (96 KiB).
TEST(ConvertTensorToTileOps, TilesA2048x2048ChainIntoARowLoop) {
  auto x = TensorVar("x", {2048, 2048});
  auto out = TensorVar("out", {2048, 2048});
  VarPtr e, s, o;
  auto body = Seq({Let(e, "e", Op("tensor.exp", {x})), Let(s, "s", Op("tensor.add", {e, x})),
                   Let(o, "o", Op("tensor.assemble", {out, s, Tuple({0, 0})})), Return({o})});
  auto program =
      Program::Make("test", {Kernel({x, out}, {ParamDirection::In, ParamDirection::Out}, body, {out->type})});
  EXPECT_EQ(Printed(program, "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> "
            "pl.Tensor[[2048, 2048], pl.FP32]:\n"
            "    e: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.exp(x)\n"
            "    s: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.add(e, x)\n"
            "    o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tensor.assemble(out, s, [0, 0])\n"
            "    return o\n");
  EXPECT_EQ(Printed(Converted(program), "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> "
            "pl.Tensor[[2048, 2048], pl.FP32]:\n"
            "    for row, (out_iter,) in pl.range(0, 2048, 4, init_values=(out,), auto_tile_bytes_per_element=12, "
            "auto_tile_vec_capacity=188416):\n"
            "        x_tile: pl.Tile[[4, 2048], pl.FP32] = pl.tile.load(x, [row, 0], [4, 2048])\n"
            "        e: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x_tile)\n"
            "        s: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.add(e, x_tile)\n"
            "        o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tile.store(s, [row, 0], out_iter)\n"
            "        out_final: pl.Tensor[[2048, 2048], pl.FP32] = pl.yield_(o)\n"
            "    return out_final\n");
}

TEST(ConvertTensorToTileOps, TilesAReturnedChainWithTooFewRowsByColumns) {
  auto x = TensorVar("x", {2, 4096});
  VarPtr e;
  auto body = Seq({Let(e, "e", Op("tensor.neg", {x})), Return({e})});
  auto program = Program::Make("test", {Kernel({x}, {ParamDirection::In}, body, {x->type})});
  // One row holds 4096 * 8 bytes; 16 KiB holds 2 rows of 1024 columns.
  EXPECT_EQ(Printed(Converted(program, 16 * 1024), "k"),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.Tensor[[2, 4096], pl.FP32], ret0_out: pl.Out[pl.Tensor[[2, 4096], pl.FP32]]) -> "
            "pl.Tensor[[2, 4096], pl.FP32]:\n"
            "    for col, (ret0_out_iter,) in pl.range(0, 4096, 1024, init_values=(ret0_out,), "
            "auto_tile_bytes_per_element=8, auto_tile_vec_capacity=16384):\n"
            "        x_tile: pl.Tile[[2, 1024], pl.FP32] = pl.tile.load(x, [0, col], [2, 1024])\n"
            "        e: pl.Tile[[2, 1024], pl.FP32, pl.Mem.Vec] = pl.tile.neg(x_tile)\n"
            "        ret0_block: pl.Tensor[[2, 4096], pl.FP32] = pl.tile.store(e, [0, col], ret0_out_iter)\n"
            "        ret0_out_final: pl.Tensor[[2, 4096], pl.FP32] = pl.yield_(ret0_block)\n"
            "    return ret0_out_final\n");
}

TEST(ConvertTensorToTileOps, LeavesAChainThatFitsWhole) {
  auto x = TensorVar("x", {2048, 2048});
  VarPtr e;
  auto program = Program::Make(
      "test", {Kernel({x}, {ParamDirection::In}, Seq({Let(e, "e", Op("tensor.neg", {x})), Return({e})}), {x->type})});
  auto out = Converted(program, int64_t{64} * 1024 * 1024);
  EXPECT_EQ(Flatten(out->functions[0]->body).size(), 4u);  // load, neg, store, return
}

// tensor.write addresses one element by its index in the whole tensor: in a
// block of rows the same index names another element, so a chain with a
// write is converted whole (and AllocateMemoryAddr reports what does not
// fit) instead of tiled.
TEST(ConvertTensorToTileOps, NeverTilesAChainWithAnIndexedWrite) {
  auto x = TensorVar("x", {2048, 2048});
  VarPtr e, w;
  auto body = Seq({Let(e, "e", Op("tensor.neg", {x})),
                   Let(w, "w", Op("tensor.write", {e, MakeTuple::Make(Ints({5, 7})), Float(1.0)})),
                   Return({w})});
  auto program = Program::Make("test", {Kernel({x}, {ParamDirection::In}, body, {x->type})});
  for (const auto& stmt : Flatten(Converted(program)->functions[0]->body)) EXPECT_FALSE(As<ForStmt>(stmt));
}

TEST(ConvertTensorToTileOps, LowersMatmulAndStoresTheFP32AccumulatorIntoTheFP16Result) {
  auto a = TensorVar("a", {64, 64}, DataType::FP16);
  auto b = TensorVar("b", {64, 64}, DataType::FP16);
  VarPtr c;
  auto body = Seq({Let(c, "c", Op("tensor.matmul", {a, b})), Return({c})});
  auto program = Program::Make("test", {Kernel({a, b}, {ParamDirection::In, ParamDirection::In}, body,
                                               {TensorType::Make({64, 64}, DataType::FP16)})});
  std::string printed = Printed(Converted(program), "k");
  // Only stored: tile.store converts FP32 in Acc to FP16 on the way out, so there is no cast.
  EXPECT_NE(printed.find("    a_tile: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Mat)\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile, b_tile)\n"
                         "    ret0: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(c, [0, 0], ret0_out)\n"),
            std::string::npos)
      << printed;
}

TEST(ConvertTensorToTileOps, RejectsAChainOfWhichNoBlockFits) {
  auto x = TensorVar("x", {4, 4096});
  VarPtr e;
  auto body = Seq({Let(e, "e", Op("tensor.neg", {x})), Return({e})});
  auto f =
      Function::Make("k", FunctionType::InCore, {x}, {ParamDirection::In}, {x->type}, body, Span("kernel.py", 7, 1));
  // Not even a [1, 1] block: x and the result take 8 bytes per element.
  Error err = ConvertError(Program::Make("test", {f}), 4);
  EXPECT_EQ(err.kind(), ErrorKind::kValue);
  EXPECT_EQ(err.span(), Span("kernel.py", 7, 1));
  EXPECT_EQ(err.message(),
            "ConvertTensorToTileOps: in function 'k', the chain over [4, 4096] keeps 8 bytes per element in live "
            "tiles and cannot be tiled: no block of it fits in the 4 bytes of Vec; split the chain, or slice the "
            "tensors in a pl.range loop over static blocks yourself (pass the last block's extents as "
            "valid_shape)");
}

TEST(ConvertTensorToTileOps, TransposesATransposedMatmulOperandWithTileTranspose) {
  auto a = TensorVar("a", {32, 64}, DataType::FP16);
  auto b = TensorVar("b", {32, 64}, DataType::FP16);
  VarPtr c;
  auto body = Seq({Let(c, "c", Op("tensor.matmul", {a, b}, {{"a_trans", true}, {"out_dtype", DataType::FP32}})),
                   Return({c})});
  auto program = Program::Make("test", {Kernel({a, b}, {ParamDirection::In, ParamDirection::In}, body,
                                               {TensorType::Make({64, 64}, DataType::FP32)})});
  std::string printed = Printed(Converted(program), "k");
  EXPECT_NE(printed.find("    a_tile_t: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.transpose(a_tile, 0, 1)\n"
                         "    c: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile_t, b_tile)\n"),
            std::string::npos)
      << printed;
}

TEST(ConvertTensorToTileOps, ALoopCarryingAComputedTensorCarriesItsTile) {
  auto x = TensorVar("x", {16, 16});
  auto i = IndexVar("i");
  VarPtr e, n;
  auto pre = Let(e, "e", Op("tensor.exp", {x}));
  auto acc = IterArg::Make("acc", e->type, e);
  auto loop_body = Seq({Let(n, "n", Op("tensor.add", {acc, x})), Yield({n})});
  auto result = Var::Make("result", e->type);
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, loop_body, {result});
  auto program =
      Program::Make("test", {Kernel({x}, {ParamDirection::In}, Seq({pre, loop, Return({result})}), {x->type})});
  auto converted = Converted(program);
  EXPECT_EQ(AllVerifierErrors(converted), "");
  std::string printed = Printed(converted, "k");
  EXPECT_NE(printed.find("    for i, (acc,) in pl.range(0, 4, 1, init_values=(e,)):\n"
                         "        n: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x_tile)\n"
                         "        result: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(n)\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("pl.tile.store(result, [0, 0], ret0_out)"), std::string::npos) << printed;
}

TEST(ConvertTensorToTileOps, RejectsAnInvalidCapacityOption) {
  EXPECT_EQ(passes::ReadVecCapacityOption({{"vec_capacity_bytes", int64_t{4096}}}, 0), 4096);
  EXPECT_EQ(passes::ReadVecCapacityOption({}, 0), 0);
  try {
    passes::ReadVecCapacityOption({{"vec_capacity_bytes", int64_t{-1}}}, 0);
    FAIL() << "a negative capacity was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
    EXPECT_EQ(e.message(),
              "ConvertTensorToTileOps option 'vec_capacity_bytes' must be 0 (the platform's) or a positive byte "
              "count, got -1");
  }
}

// A kernel declared to take and return tiles already works at tile level:
// its returned tile is not stored into a new Out param.
TEST(ConvertTensorToTileOps, LeavesAFunctionThatReturnsATileAsItIs) {
  auto tile_type = TileType::Make({16, 16}, DataType::FP16, MemorySpace::Vec);
  auto t = Var::Make("t", tile_type);
  auto u = Var::Make("u", tile_type);
  VarPtr sum;
  auto program = Program::Make("test", {Kernel({t, u}, {ParamDirection::In, ParamDirection::In},
                                               Seq({Let(sum, "sum", Op("tile.add", {t, u})), Return({sum})}),
                                               {tile_type})});
  EXPECT_SAME_IR(Converted(program), program);
}

TEST(ConvertTensorToTileOps, IsIdempotent) {
  auto x = TensorVar("x", {64, 64});
  VarPtr e;
  auto program = Program::Make(
      "test", {Kernel({x}, {ParamDirection::In}, Seq({Let(e, "e", Op("tensor.exp", {x})), Return({e})}), {x->type})});
  auto once = Converted(program);
  EXPECT_SAME_IR(Converted(once), once);
}

}  // namespace
}  // namespace pypto::test
