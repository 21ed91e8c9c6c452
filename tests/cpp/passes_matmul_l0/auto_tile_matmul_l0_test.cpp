// AutoTileMatmulL0 on tile-level kernels, with a2a3's and a5's capacities;
// and tensor-level matmuls lowered through the passes around it.
#include "auto_tile_matmul_l0.h"

#include <gtest/gtest.h>

#include "convert_tensor_to_tile_ops.h"
#include "flatten_tile_nd_to_2d.h"
#include "infer_tile_memory_space.h"
#include "pypto/backend/platform.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/pass_test_util.h"
#include "support/verifier_errors.h"

namespace pypto::test {
namespace {

using backend::Platform;
using passes::L0Tile;
using passes::MatmulExtents;

const Platform& A2A3() { return Platform::Get("a2a3"); }
const Platform& A5() { return Platform::Get("a5"); }

ExprPtr Op(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs));
}
ExprPtr List(const std::vector<int64_t>& values) { return MakeTuple::Make(Ints(values)); }
AttrValue Space(MemorySpace space) { return EnumAttr::Of(space); }

StmtPtr Let(VarPtr& var, const std::string& name, const ExprPtr& value) {
  var = Var::Make(name, value->type);
  return Assign(var, value);
}

ExprPtr LoadMat(const VarPtr& tensor) {
  auto type = As<TensorType>(tensor->type);
  auto shape = *StaticShape(type->shape);
  return Op("tile.load", {tensor, List({0, 0}), List(shape)}, {{"target_memory", Space(MemorySpace::Mat)}});
}

// c = A[m, k] @ B[k, n] (FP16) stored into out [m, n] (FP32).
struct StoredMatmul {
  VarPtr a, b, out, ta, tb, c, r;
  ProgramPtr program;

  StoredMatmul(int64_t m, int64_t n, int64_t k, Span span = Span()) {
    a = Var::Make("a", TensorType::Make({m, k}, DataType::FP16));
    b = Var::Make("b", TensorType::Make({k, n}, DataType::FP16));
    out = Var::Make("out", TensorType::Make({m, n}, DataType::FP32));
    std::vector<StmtPtr> stmts = {Let(ta, "ta", LoadMat(a)), Let(tb, "tb", LoadMat(b))};
    ExprPtr product = ops::OpRegistry::Global().Create("tile.matmul", {ta, tb}, {}, span);
    stmts.push_back(Let(c, "c", product));
    stmts.push_back(Let(r, "r", Op("tile.store", {c, List({0, 0}), out})));
    stmts.push_back(Return({r}));
    auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                            {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type}, Seq(stmts));
    program = Program::Make("test", {f});
  }
};

ProgramPtr Tiled(const ProgramPtr& program, const Platform& platform) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  ProgramPtr out = passes::AutoTileMatmulL0(program, platform);
  EXPECT_EQ(AllVerifierErrors(out), "");
  return out;
}

Error TileError(const ProgramPtr& program, const Platform& platform) {
  try {
    passes::AutoTileMatmulL0(program, platform);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "AutoTileMatmulL0 accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}

MatmulExtents Fp16(int64_t m, int64_t n, int64_t k) { return {m, n, k, DataType::FP16, DataType::FP32}; }

// ---------------------------------------------------------------- tile choice

TEST(ChooseL0Tile, AWholeMatmulThatFitsIsOneBlock) {
  EXPECT_TRUE(passes::FitsL0(Fp16(128, 128, 128), A2A3()));
  EXPECT_EQ(passes::ChooseL0Tile(Fp16(128, 128, 128), A2A3()), (L0Tile{128, 128, 128}));
}

TEST(ChooseL0Tile, ShrinksKFirstWhileTheResultFitsAcc) {
  // C [128, 128] FP32 is 64 KiB (fits Acc); A [128, 1024] FP16 is 256 KiB.
  EXPECT_FALSE(passes::FitsL0(Fp16(128, 128, 1024), A2A3()));
  EXPECT_EQ(passes::ChooseL0Tile(Fp16(128, 128, 1024), A2A3()), (L0Tile{128, 128, 256}));
}

TEST(ChooseL0Tile, A5sLargerAccKeepsTheWholeNThatA2A3Splits) {
  // C [256, 256] FP32 is 256 KiB: twice a2a3's Acc, exactly a5's.
  EXPECT_EQ(passes::ChooseL0Tile(Fp16(256, 256, 512), A2A3()), (L0Tile{256, 128, 128}));
  EXPECT_EQ(passes::ChooseL0Tile(Fp16(256, 256, 512), A5()), (L0Tile{256, 256, 128}));
}

TEST(ChooseL0Tile, EveryChosenBlockFitsAndDividesItsExtent) {
  for (const Platform* platform : {&A2A3(), &A5()}) {
    for (int64_t m : {16, 48, 256, 1024}) {
      for (int64_t n : {32, 256, 768}) {
        for (int64_t k : {64, 512, 4096}) {
          MatmulExtents e = Fp16(m, n, k);
          auto tile = passes::ChooseL0Tile(e, *platform);
          ASSERT_TRUE(tile.has_value()) << m << " " << n << " " << k;
          EXPECT_EQ(m % tile->m, 0);
          EXPECT_EQ(n % tile->n, 0);
          EXPECT_EQ(k % tile->k, 0);
          EXPECT_LE(passes::LeftBytes(e, *tile), platform->Capacity(MemorySpace::Left));
          EXPECT_LE(passes::RightBytes(e, *tile), platform->Capacity(MemorySpace::Right));
          EXPECT_LE(passes::AccBytes(e, *tile, *platform), platform->Capacity(MemorySpace::Acc));
        }
      }
    }
  }
}

TEST(ChooseL0Tile, NoBlockWhenKHasNoAlignedDivisorAndOneRowIsTooBig) {
  EXPECT_EQ(passes::ChooseL0Tile(Fp16(128, 128, 5000), A2A3()), std::nullopt);
}

// ---------------------------------------------------------------- rewrite

TEST(AutoTileMatmulL0, LeavesAMatmulThatFitsAlone) {
  StoredMatmul k(128, 128, 128);
  EXPECT_EQ(passes::AutoTileMatmulL0(k.program, A2A3()), k.program);
}

TEST(AutoTileMatmulL0, SplitsKIntoAMatmulAndAMatmulAccLoop) {
  StoredMatmul k(128, 128, 1024);
  EXPECT_EQ(PrintFunction(Tiled(k.program, A2A3())->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[128, 1024], pl.FP16], b: pl.Tensor[[1024, 128], pl.FP16], out: "
            "pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:\n"
            "    ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], "
            "target_memory=pl.Mem.Mat)\n"
            "    tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], "
            "target_memory=pl.Mem.Mat)\n"
            "    ta_l0: pl.Tile[[128, 256], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, [128, 256], "
            "target_memory=pl.Mem.Left)\n"
            "    tb_l0: pl.Tile[[256, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, [256, 128], "
            "target_memory=pl.Mem.Right)\n"
            "    c_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l0, tb_l0)\n"
            "    for ko, (c_partial,) in pl.range(256, 1024, 256, init_values=(c_k0,)):\n"
            "        ta_l0_1: pl.Tile[[128, 256], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, [128, 256], "
            "target_memory=pl.Mem.Left)\n"
            "        tb_l0_1: pl.Tile[[256, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, [256, 128], "
            "target_memory=pl.Mem.Right)\n"
            "        c_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_partial, ta_l0_1, "
            "tb_l0_1)\n"
            "        c_block: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_next)\n"
            "    r_block: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c_block, [0, 0], out)\n"
            "    return r_block\n");
}

TEST(AutoTileMatmulL0, A2A3SplitsNWhereA5OnlySplitsK) {
  StoredMatmul k(256, 256, 512);
  std::string a2a3 = PrintFunction(Tiled(k.program, A2A3())->functions[0]);
  std::string a5 = PrintFunction(Tiled(k.program, A5())->functions[0]);
  EXPECT_NE(a2a3.find("    for no, (out_iter,) in pl.range(0, 256, 128, init_values=(out,)):\n"), std::string::npos)
      << a2a3;
  EXPECT_NE(a2a3.find("pl.tile.store(c_block, [0, no], out_iter)"), std::string::npos) << a2a3;
  EXPECT_EQ(a5.find("for no"), std::string::npos) << a5;
  EXPECT_NE(a5.find("\n    for ko, (c_partial,) in pl.range(128, 512, 128, init_values=(c_k0,)):\n"),
            std::string::npos)
      << a5;
}

TEST(AutoTileMatmulL0, SplitsMAndNIntoBlockLoopsStoringEachBlock) {
  // C [4096, 64] FP32 is 1 MiB; even 16 columns of all 4096 rows (256 KiB) exceed
  // Acc, so M is halved and N goes in blocks of 16; K (16) fits whole.
  StoredMatmul k(4096, 64, 16);
  std::string printed = PrintFunction(Tiled(k.program, A2A3())->functions[0]);
  EXPECT_NE(printed.find("    for mo, (out_iter,) in pl.range(0, 4096, 2048, init_values=(out,)):\n"
                         "        for no, (out_iter_col,) in pl.range(0, 64, 16, init_values=(out_iter,)):\n"
                         "            ta_l0: pl.Tile[[2048, 16], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, mo, 0, "
                         "[2048, 16], target_memory=pl.Mem.Left)\n"
                         "            tb_l0: pl.Tile[[16, 16], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, no, "
                         "[16, 16], target_memory=pl.Mem.Right)\n"
                         "            c_k0: pl.Tile[[2048, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l0, tb_l0)\n"
                         "            r_block: pl.Tensor[[4096, 64], pl.FP32] = pl.tile.store(c_k0, [mo, no], "
                         "out_iter_col)\n"
                         "            out_iter_row: pl.Tensor[[4096, 64], pl.FP32] = pl.yield_(r_block)\n"
                         "        r: pl.Tensor[[4096, 64], pl.FP32] = pl.yield_(out_iter_row)\n"
                         "    return r\n"),
            std::string::npos)
      << printed;
}

TEST(AutoTileMatmulL0, KeepsAllRowsAndSplitsOnlyNWhenKFits) {
  // A [512, 64] FP16 fills Left exactly; C needs N in blocks of 64 (128 KiB).
  StoredMatmul k(512, 512, 64);
  std::string printed = PrintFunction(Tiled(k.program, A2A3())->functions[0]);
  EXPECT_NE(printed.find("    for no, (out_iter,) in pl.range(0, 512, 64, init_values=(out,)):\n"
                         "        tb_l0: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, no, [64, 64], "
                         "target_memory=pl.Mem.Right)\n"
                         "        c_k0: pl.Tile[[512, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb_l0)\n"),
            std::string::npos)
      << printed;
}

TEST(AutoTileMatmulL0, AssemblesBlocksWhenTheProductIsReadByMoreThanAStore) {
  auto a = Var::Make("a", TensorType::Make({256, 64}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({64, 512}, DataType::FP16));
  auto out = Var::Make("out", TensorType::Make({256, 512}, DataType::FP32));
  VarPtr ta, tb, c, r1, r2;
  auto body = Seq({Let(ta, "ta", LoadMat(a)), Let(tb, "tb", LoadMat(b)), Let(c, "c", Op("tile.matmul", {ta, tb})),
                   Let(r1, "r1", Op("tile.store", {c, List({0, 0}), out})),
                   Let(r2, "r2", Op("tile.store", {c, List({0, 0}), r1})), Return({r2})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                          {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type}, body);
  std::string printed = PrintFunction(Tiled(Program::Make("test", {f}), A2A3())->functions[0]);
  EXPECT_NE(printed.find("    c_full: pl.Tile[[256, 512], pl.FP32] = pl.tile.create([256, 512], dtype=pl.FP32)\n"
                         "    for no, (c_iter,) in pl.range(0, 512, 128, init_values=(c_full,)):\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("pl.tile.assemble(c_iter, c_k0, [0, no])"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pl.tile.store(c, [0, 0], out)"), std::string::npos) << printed;
}

TEST(AutoTileMatmulL0, SplitsAMatmulAccOntoItsAccumulator) {
  auto a = Var::Make("a", TensorType::Make({128, 1024}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({1024, 128}, DataType::FP16));
  auto out = Var::Make("out", TensorType::Make({128, 128}, DataType::FP32));
  VarPtr ta, tb, acc0, c, r;
  auto body =
      Seq({Let(ta, "ta", LoadMat(a)), Let(tb, "tb", LoadMat(b)),
           Let(acc0, "acc0", Op("tile.create", {List({128, 128})}, {{"dtype", DataType::FP32},
                                                                    {"target_memory", Space(MemorySpace::Acc)}})),
           Let(c, "c", Op("tile.matmul_acc", {acc0, ta, tb})), Let(r, "r", Op("tile.store", {c, List({0, 0}), out})),
           Return({r})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                          {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type}, body);
  std::string printed = PrintFunction(Tiled(Program::Make("test", {f}), A2A3())->functions[0]);
  EXPECT_NE(printed.find("c_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc0, ta_l0, tb_l0)"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("pl.tile.matmul_acc(c_partial, ta_l0_1, tb_l0_1)"), std::string::npos) << printed;
}

TEST(AutoTileMatmulL0, TilesAMatmulInsideALoopBody) {
  auto a = Var::Make("a", TensorType::Make({128, 1024}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({1024, 128}, DataType::FP16));
  auto out = Var::Make("out", TensorType::Make({128, 128}, DataType::FP32));
  VarPtr ta, tb, c, r;
  auto i = IndexVar("i");
  auto carried = IterArg::Make("o", out->type, out);
  auto rv = Var::Make("o_final", out->type);
  auto loop_body = Seq({Let(ta, "ta", LoadMat(a)), Let(tb, "tb", LoadMat(b)),
                        Let(c, "c", Op("tile.matmul", {ta, tb})),
                        Let(r, "r", Op("tile.store", {c, List({0, 0}), carried})), Yield({r})});
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {carried}, loop_body, {rv});
  auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                          {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type},
                          Seq({loop, Return({rv})}));
  std::string printed = PrintFunction(Tiled(Program::Make("test", {f}), A2A3())->functions[0]);
  EXPECT_NE(printed.find("        for ko, (c_partial,) in pl.range(256, 1024, 256, init_values=(c_k0,)):\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("r_block: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c_block, [0, 0], o)"),
            std::string::npos)
      << printed;
}

TEST(AutoTileMatmulL0, RejectsAMatmulNoBlockFitsNamingShapesBytesAndTheFix) {
  StoredMatmul k(128, 128, 5000, Span("kernel.py", 12, 9));
  Error err = TileError(k.program, A2A3());
  EXPECT_EQ(err.kind(), ErrorKind::kValue);
  EXPECT_EQ(err.span(), Span("kernel.py", 12, 9));
  EXPECT_EQ(err.message(),
            "AutoTileMatmulL0: in function 'k', tile.matmul of A [128, 5000] FP16 (1282048 bytes, Left holds 65536), "
            "B [5000, 128] FP16 (1282048 bytes, Right holds 65536) and C [128, 128] FP32 (65536 bytes, Acc holds "
            "131072) on a2a3 does not fit L0, and no split does: the smallest blocks the extents allow are A "
            "[16, 5000] (160256 bytes), B [5000, 16] (160256 bytes), C [16, 16] (1024 bytes) (K=5000 has no divisor "
            "that is a multiple of 16); pad the extents to multiples of 16, or slice the operands in a pl.range loop "
            "so that each matmul fits");
}

TEST(AutoTileMatmulL0, RejectsAnOversizedOperandAlreadyInLeft) {
  auto a = Var::Make("a", TensorType::Make({128, 1024}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({1024, 128}, DataType::FP16));
  auto out = Var::Make("out", TensorType::Make({128, 128}, DataType::FP32));
  VarPtr ta, tb, ta_left, tb_right, c, r;
  auto body = Seq({Let(ta, "ta", LoadMat(a)), Let(tb, "tb", LoadMat(b)),
                   Let(ta_left, "ta_left", Op("tile.move", {ta}, {{"target_memory", Space(MemorySpace::Left)}})),
                   Let(tb_right, "tb_right", Op("tile.move", {tb}, {{"target_memory", Space(MemorySpace::Right)}})),
                   Let(c, "c", Op("tile.matmul", {ta_left, tb_right})),
                   Let(r, "r", Op("tile.store", {c, List({0, 0}), out})), Return({r})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                          {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type}, body);
  EXPECT_EQ(TileError(Program::Make("test", {f}), A2A3()).message(),
            "AutoTileMatmulL0: in function 'k', 'lhs' (ta_left) is already in Left and too big for it; leave it in "
            "Mat (load it with target_memory=pl.Mem.Mat and drop the tile.move) so that this pass can cut it into "
            "L0 blocks");
}

TEST(AutoTileMatmulL0, RejectsADynamicExtent) {
  auto m = IndexVar("M");
  auto ta = Var::Make("ta", TileType::Make(std::vector<ExprPtr>{m, Int(1024)}, DataType::FP16, MemorySpace::Mat));
  auto tb = Var::Make("tb", TileType::Make(std::vector<int64_t>{1024, 128}, DataType::FP16, MemorySpace::Mat));
  VarPtr c;
  auto body = Seq({Let(c, "c", Op("tile.matmul", {ta, tb})), Return({c})});
  auto f = Function::Make("k", FunctionType::InCore, {m, ta, tb}, {}, {c->type}, body);
  EXPECT_EQ(TileError(Program::Make("test", {f}), A2A3()).message(),
            "AutoTileMatmulL0: in function 'k', tile.matmul needs 2-D operands of static shape to be split into L0 "
            "blocks, got lhs [M, 1024] and rhs [1024, 128]; slice the operands in a pl.range loop with static block "
            "sizes so that each matmul fits");
}

// ---------------------------------------------------------------- with the passes around it

ProgramPtr Lowered(const ProgramPtr& program, const Platform& platform) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  pass::PassContext ctx;
  ctx.set_platform(platform);
  ProgramPtr tiles = passes::ConvertTensorToTileOps(program, platform.Capacity(MemorySpace::Vec));
  EXPECT_EQ(AllVerifierErrors(tiles), "");
  ProgramPtr flat = passes::FlattenTileNdTo2DPass().Run(tiles, ctx);
  ProgramPtr split = passes::AutoTileMatmulL0Pass().Run(flat, ctx);
  EXPECT_EQ(AllVerifierErrors(split), "");
  ProgramPtr placed = passes::InferTileMemorySpacePass().Run(split, ctx);
  EXPECT_EQ(AllVerifierErrors(placed), "");
  return placed;
}

TEST(TensorMatmulLowering, ATransposedOperandIsTransposedInMatAndTheFP16ResultIsStoredFromAcc) {
  auto a = Var::Make("a", TensorType::Make({64, 128}, DataType::FP16));  // read as [128, 64]
  auto b = Var::Make("b", TensorType::Make({64, 64}, DataType::FP16));
  VarPtr c;
  auto body = Seq({Let(c, "c", Op("tensor.matmul", {a, b}, {{"a_trans", true}})), Return({c})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b}, {ParamDirection::In, ParamDirection::In},
                          {TensorType::Make({128, 64}, DataType::FP16)}, body);
  EXPECT_EQ(PrintFunction(Lowered(Program::Make("test", {f}), A2A3())->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16], ret0_out: "
            "pl.Out[pl.Tensor[[128, 64], pl.FP16]]) -> pl.Tensor[[128, 64], pl.FP16]:\n"
            "    a_tile: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 128], "
            "target_memory=pl.Mem.Mat)\n"
            "    b_tile: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 64], "
            "target_memory=pl.Mem.Mat)\n"
            "    a_tile_t: pl.Tile[[128, 64], pl.FP16, pl.Mem.Mat] = pl.tile.transpose(a_tile, 0, 1)\n"
            "    a_tile_t_Left: pl.Tile[[128, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(a_tile_t, "
            "target_memory=pl.Mem.Left)\n"
            "    b_tile_Right: pl.Tile[[64, 64], pl.FP16, pl.Mem.Right] = pl.tile.move(b_tile, "
            "target_memory=pl.Mem.Right)\n"
            "    c: pl.Tile[[128, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile_t_Left, b_tile_Right)\n"
            "    ret0: pl.Tensor[[128, 64], pl.FP16] = pl.tile.store(c, [0, 0], ret0_out)\n"
            "    return ret0\n");
}

TEST(TensorMatmulLowering, BTransposedWithOutDtypeFP32NeedsNoCast) {
  auto a = Var::Make("a", TensorType::Make({64, 32}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({128, 32}, DataType::FP16));  // read as [32, 128]
  VarPtr c;
  auto body =
      Seq({Let(c, "c", Op("tensor.matmul", {a, b}, {{"b_trans", true}, {"out_dtype", DataType::FP32}})), Return({c})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b}, {ParamDirection::In, ParamDirection::In},
                          {TensorType::Make({64, 128}, DataType::FP32)}, body);
  std::string printed = PrintFunction(Lowered(Program::Make("test", {f}), A2A3())->functions[0]);
  EXPECT_NE(printed.find("    b_tile_t: pl.Tile[[32, 128], pl.FP16, pl.Mem.Mat] = pl.tile.transpose(b_tile, 0, 1)\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("    c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile_Left, "
                         "b_tile_t_Right)\n"
                         "    ret0: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(c, [0, 0], ret0_out)\n"),
            std::string::npos)
      << printed;
  EXPECT_EQ(printed.find("tile.cast"), std::string::npos) << printed;
}

TEST(TensorMatmulLowering, ASliceThatFeedsOnlyTheCubeIsLoadedIntoMat) {
  auto a = Var::Make("a", TensorType::Make({128, 64}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({64, 64}, DataType::FP16));
  VarPtr top, c;
  auto body = Seq({Let(top, "top", Op("tensor.slice", {a, List({64, 64}), List({0, 0})})),
                   Let(c, "c", Op("tensor.matmul", {top, b}, {{"out_dtype", DataType::FP32}})), Return({c})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b}, {ParamDirection::In, ParamDirection::In},
                          {TensorType::Make({64, 64}, DataType::FP32)}, body);
  ProgramPtr tiles = passes::ConvertTensorToTileOps(Program::Make("test", {f}), A2A3().Capacity(MemorySpace::Vec));
  std::string printed = PrintFunction(tiles->functions[0]);
  EXPECT_NE(printed.find("    top: pl.Tile[[64, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], "
                         "target_memory=pl.Mem.Mat)\n"),
            std::string::npos)
      << printed;
}

TEST(TensorMatmulLowering, AResultReadByAVectorOpIsCastToTheTensorDtype) {
  auto a = Var::Make("a", TensorType::Make({64, 64}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({64, 64}, DataType::FP16));
  VarPtr c, e;
  auto body = Seq({Let(c, "c", Op("tensor.matmul", {a, b})), Let(e, "e", Op("tensor.exp", {c})), Return({e})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b}, {ParamDirection::In, ParamDirection::In},
                          {TensorType::Make({64, 64}, DataType::FP16)}, body);
  ProgramPtr tiles = passes::ConvertTensorToTileOps(Program::Make("test", {f}), A2A3().Capacity(MemorySpace::Vec));
  std::string printed = PrintFunction(tiles->functions[0]);
  EXPECT_NE(printed.find("    acc: pl.Tile[[64, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile, b_tile)\n"
                         "    c: pl.Tile[[64, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(acc, target_type=pl.FP16)\n"),
            std::string::npos)
      << printed;
}

TEST(TensorMatmulLowering, ATooBigMatmulEndsInL0BlocksOnBothPlatforms) {
  auto a = Var::Make("a", TensorType::Make({256, 512}, DataType::FP16));
  auto b = Var::Make("b", TensorType::Make({512, 256}, DataType::FP16));
  auto out = Var::Make("out", TensorType::Make({256, 256}, DataType::FP32));
  VarPtr c, o;
  auto body = Seq({Let(c, "c", Op("tensor.matmul", {a, b}, {{"out_dtype", DataType::FP32}})),
                   Let(o, "o", Op("tensor.assemble", {out, c, List({0, 0})})), Return({o})});
  auto f = Function::Make("k", FunctionType::InCore, {a, b, out},
                          {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {out->type}, body);
  for (const Platform* platform : {&A2A3(), &A5()}) {
    std::string printed = PrintFunction(Lowered(Program::Make("test", {f}), *platform)->functions[0]);
    EXPECT_NE(printed.find("pl.tile.extract(a_tile, 0, ko, [256, 128], target_memory=pl.Mem.Left)"),
              std::string::npos)
        << platform->name << "\n"
        << printed;
    EXPECT_EQ(printed.find("tile.move"), std::string::npos) << platform->name << "\n" << printed;
  }
}

}  // namespace
}  // namespace pypto::test
