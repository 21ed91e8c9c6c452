// Each hint fires on a kernel that has the problem and stays quiet on the
// fixed kernel.
#include "perf_hints.h"

#include "allocate_memory_addr.h"
#include "convert_tensor_to_tile_ops.h"
#include "init_memref.h"
#include "passes_memory/memory_test_util.h"

namespace pypto::test {
namespace {

using passes::FindPerfHints;
using passes::PerfHintOptions;
using passes::PerfHintsPass;

Span Line(int line) { return Span("k.py", line, 5); }

ExprPtr Offsets(std::vector<ExprPtr> values) { return MakeTuple::Make(std::move(values)); }

CallPtr LoadAt(const VarPtr& tensor, std::vector<ExprPtr> offsets, const std::vector<int64_t>& shape,
               MemorySpace space = MemorySpace::Vec) {
  return Op("tile.load", {tensor, Offsets(std::move(offsets)), Tuple(shape)}, Target(space));
}

CallPtr StoreAt(const ExprPtr& tile, std::vector<ExprPtr> offsets, const VarPtr& tensor) {
  return Op("tile.store", {tile, Offsets(std::move(offsets)), tensor});
}

CallPtr Move(const ExprPtr& tile, MemorySpace space) { return Op("tile.move", {tile}, Target(space)); }

// for <var> in pl.range(start, stop, step) carrying one value from `init`;
// `body` computes the carried value's next one from the iter_arg it is given.
// The result is the loop's return var.
template <class Body>
VarPtr ForCarrying(std::vector<StmtPtr>& out, const std::string& var, int64_t start, int64_t stop, int64_t step,
                   const VarPtr& init, int line, Body&& body, ir::Attrs attrs = {}) {
  auto loop_var = IndexVar(var);
  auto iter_arg = IterArg::Make(init->name_hint + "_iter", init->type, init);
  std::vector<StmtPtr> stmts;
  VarPtr next = body(stmts, loop_var, VarPtr(iter_arg));
  stmts.push_back(Yield({next}));
  auto result = Var::Make(init->name_hint + "_final", init->type);
  out.push_back(ForStmt::Make(loop_var, Int(start), Int(stop), Int(step), {iter_arg}, SeqStmts::Make(std::move(stmts)),
                              {result}, ForKind::Sequential, std::move(attrs), Line(line)));
  return result;
}

FunctionPtr KernelOf(std::vector<VarPtr> params, std::vector<StmtPtr> body, const VarPtr& result) {
  body.push_back(Return({result}));
  return Kernel("k", std::move(params), std::move(body), {result->type});
}

std::vector<ir::Diagnostic> Hints(const ProgramPtr& program, const std::string& platform = "a2a3sim",
                                  const PerfHintOptions& options = {}, bool allocated = false) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  return FindPerfHints(program, backend::Platform::Get(platform), options, allocated);
}

// "PH002 line 5" for each hint.
std::vector<std::string> Sites(const std::vector<ir::Diagnostic>& hints) {
  std::vector<std::string> sites;
  for (const auto& h : hints) sites.push_back(h.code + " line " + std::to_string(h.span.begin_line));
  return sites;
}

// Only the hints of `code`.
std::vector<ir::Diagnostic> OfCode(const std::vector<ir::Diagnostic>& hints, const std::string& code) {
  std::vector<ir::Diagnostic> selected;
  for (const auto& h : hints) {
    if (h.code == code) selected.push_back(h);
  }
  return selected;
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---------------------------------------------------------------- the pass

TEST(PerfHints, DescribesItselfAndLeavesTheProgramAlone) {
  PerfHintsPass pass;
  EXPECT_EQ(pass.name(), "PerfHints");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.produced().empty());
  EXPECT_TRUE(pass.invalidated().empty());
  std::vector<std::string> options;
  for (const auto& spec : pass.option_specs()) options.push_back(spec.name);
  EXPECT_EQ(options, (std::vector<std::string>{"efficient_transfer_bytes", "min_block_rows", "nearly_full_percent"}));

  auto x = TensorVar("x", {64, 1024});
  auto out = TensorVar("out", {64, 1024});
  std::vector<StmtPtr> body;
  auto t = Def(body, "t", LoadAt(x, {Int(0), Int(0)}, {16, 32}), Line(3));
  auto r = Def(body, "r", StoreAt(t, {Int(0), Int(0)}, out), Line(4));
  auto program = ProgramWith({KernelOf({x, out}, std::move(body), r)});
  pass::PassContext ctx;
  EXPECT_EQ(pass.Run(program, ctx), program);
  ASSERT_EQ(ctx.diagnostics().size(), 2u);
  EXPECT_EQ(ctx.diagnostics()[0].severity, ir::Diagnostic::Severity::kPerfHint);
  EXPECT_EQ(Sites(ctx.diagnostics()), (std::vector<std::string>{"PH001 line 3", "PH001 line 4"}));
}

TEST(PerfHints, OptionsAreChecked) {
  PerfHintsPass pass;
  pass::PassOptions options;
  options.Set("min_block_rows", int64_t{0});
  EXPECT_THROW(pass.Configure(options), Error);
  options.Set("min_block_rows", int64_t{8});
  options.Set("nearly_full_percent", int64_t{101});
  EXPECT_THROW(pass.Configure(options), Error);
  options.Set("nearly_full_percent", int64_t{75});
  pass.Configure(options);
  EXPECT_EQ(pass.options().min_block_rows, 8);
  EXPECT_EQ(pass.options().nearly_full_percent, 75);
}

// ---------------------------------------------------------------- PH001

// t = load(x [64, 1024], [0, 0], shape); r = store(t, [0, 0], out)
ProgramPtr CopyWindow(const std::vector<int64_t>& shape, const std::vector<int64_t>& tensor = {64, 1024}) {
  auto x = TensorVar("x", tensor);
  auto out = TensorVar("out", tensor);
  std::vector<StmtPtr> body;
  auto t = Def(body, "t", LoadAt(x, {Int(0), Int(0)}, shape), Line(3));
  auto r = Def(body, "r", StoreAt(t, {Int(0), Int(0)}, out), Line(4));
  return ProgramWith({KernelOf({x, out}, std::move(body), r)});
}

TEST(PerfHints, NarrowRowsAreReportedWithTheBytesTheyMove) {
  auto hints = Hints(CopyWindow({16, 32}));
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH001 line 3", "PH001 line 4"}));
  EXPECT_EQ(hints[0].rule, "TileInnermostDimGranularity");
  EXPECT_EQ(hints[0].function, "k");
  EXPECT_EQ(hints[0].message,
            "tile.load of 't' moves [16, 32] FP32 from 'x' as 16 rows of 128 bytes (2048 bytes); platform 'a2a3sim' "
            "moves data efficiently from 512 bytes per row");
  EXPECT_EQ(hints[0].fix,
            "widen the tile's last dimension to at least 128 elements (512 bytes), or lay the data out so that the "
            "long axis is innermost");
  EXPECT_TRUE(Has(hints[1].message, "tile.store moves [16, 32] FP32 to 'out'"));
}

TEST(PerfHints, WideRowsAreNotReported) { EXPECT_TRUE(Hints(CopyWindow({16, 128})).empty()); }

TEST(PerfHints, WholeRowsOfANarrowTensorAreOneContiguousBlock) {
  EXPECT_TRUE(Hints(CopyWindow({16, 64}, {64, 64})).empty());
}

TEST(PerfHints, TheRowThresholdComesFromThePlatformOrTheOption) {
  // 64 FP32 = 256 bytes per row: below a2a3's 512, above a5's 128.
  EXPECT_EQ(Sites(Hints(CopyWindow({16, 64}))), (std::vector<std::string>{"PH001 line 3", "PH001 line 4"}));
  EXPECT_TRUE(Hints(CopyWindow({16, 64}), "a5sim").empty());
  PerfHintOptions options;
  options.efficient_transfer_bytes = 1024;
  auto hints = Hints(CopyWindow({16, 128}), "a5sim", options);
  ASSERT_EQ(hints.size(), 2u);
  EXPECT_TRUE(Has(hints[0].message, "from 1024 bytes per row"));
}

// ---------------------------------------------------------------- PH002

// for i in pl.range(0, 1024, 16):                  line 2
//     t = load(x, [i, 0], [16, 256])               line 3
//     s = load(w, <w_offsets>, [16, 256])          line 4
//     p = t * s; o = store(p, [i, 0], out_iter)
ProgramPtr ScaleRows(bool fixed, const std::function<std::vector<ExprPtr>(const VarPtr&)>& w_offsets) {
  auto x = TensorVar("x", {1024, 256});
  auto w = TensorVar("w", {1024, 256});
  auto out = TensorVar("out", {1024, 256});
  std::vector<StmtPtr> body;
  VarPtr hoisted;
  if (fixed) hoisted = Def(body, "s", LoadAt(w, w_offsets(nullptr), {16, 256}), Line(1));
  auto result = ForCarrying(body, "i", 0, 1024, 16, out, 2, [&](std::vector<StmtPtr>& loop, const VarPtr& i,
                                                                  const VarPtr& out_iter) {
    auto t = Def(loop, "t", LoadAt(x, {i, Int(0)}, {16, 256}), Line(3));
    auto s = fixed ? hoisted : Def(loop, "s", LoadAt(w, w_offsets(i), {16, 256}), Line(4));
    auto p = Def(loop, "p", Op("tile.mul", {t, s}), Line(5));
    return Def(loop, "o", StoreAt(p, {i, Int(0)}, out_iter), Line(6));
  });
  return ProgramWith({KernelOf({x, w, out}, std::move(body), result)});
}

std::vector<ExprPtr> Origin(const VarPtr&) { return {Int(0), Int(0)}; }

TEST(PerfHints, ALoadThatReadsTheSameDataInEveryIterationIsReported) {
  auto hints = Hints(ScaleRows(false, Origin));
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH002 line 4"}));
  EXPECT_EQ(hints[0].rule, "LoopInvariantLoad");
  EXPECT_EQ(hints[0].message,
            "tile.load of 's' ([16, 256] FP32 from 'w') is inside the loop over 'i' (line 2) but reads the same data "
            "in every iteration: its tensor, offsets and shape do not depend on the loop, and the loop does not "
            "write that tensor; it is loaded 64 times");
  EXPECT_EQ(hints[0].fix, "load it once before the loop over 'i' (line 2) and use that tile inside the loop");
}

TEST(PerfHints, TheHoistedLoadIsNotReported) { EXPECT_TRUE(Hints(ScaleRows(true, Origin)).empty()); }

TEST(PerfHints, ALoadWhoseOffsetIsComputedFromTheLoopVarIsNotReported) {
  // The offset goes through a scalar computed in the loop: off = i + 0 is still i.
  auto x = TensorVar("x", {1024, 256});
  auto out = TensorVar("out", {1024, 256});
  std::vector<StmtPtr> body;
  auto result = ForCarrying(body, "i", 0, 1024, 16, out, 2, [&](std::vector<StmtPtr>& loop, const VarPtr& i,
                                                                  const VarPtr& out_iter) {
    auto row = Def(loop, "row", Bin(BinaryOp::Add, i, Int(0)), Line(3));
    auto t = Def(loop, "t", LoadAt(x, {row, Int(0)}, {16, 256}), Line(4));
    return Def(loop, "o", StoreAt(t, {row, Int(0)}, out_iter), Line(5));
  });
  EXPECT_TRUE(Hints(ProgramWith({KernelOf({x, out}, std::move(body), result)})).empty());
}

TEST(PerfHints, ALoadOfATensorTheLoopWritesIsNotReported) {
  // Each iteration reads back what the previous one stored into `acc`. The
  // load names the parameter, not the iter_arg: only the storage is shared.
  auto acc = TensorVar("acc", {16, 256});
  std::vector<StmtPtr> body;
  auto result = ForCarrying(body, "i", 0, 8, 1, acc, 2, [&](std::vector<StmtPtr>& loop, const VarPtr&,
                                                             const VarPtr& acc_iter) {
    auto t = Def(loop, "t", LoadAt(acc, {Int(0), Int(0)}, {16, 256}), Line(3));
    auto d = Def(loop, "d", Op("tile.add", {t, t}), Line(4));
    return Def(loop, "o", StoreAt(d, {Int(0), Int(0)}, acc_iter), Line(5));
  });
  EXPECT_TRUE(Hints(ProgramWith({KernelOf({acc}, std::move(body), result)})).empty());
}

TEST(PerfHints, TheFixNamesTheOutermostLoopTheLoadDoesNotDependOn) {
  // for j: for i: s = load(w, [0, 0]) -- invariant in both loops.
  auto w = TensorVar("w", {16, 256});
  auto out = TensorVar("out", {1024, 256});
  std::vector<StmtPtr> body;
  auto result = ForCarrying(body, "j", 0, 4, 1, out, 2, [&](std::vector<StmtPtr>& outer, const VarPtr&,
                                                             const VarPtr& out_j) {
    return ForCarrying(outer, "i", 0, 1024, 16, out_j, 3, [&](std::vector<StmtPtr>& inner, const VarPtr& i,
                                                               const VarPtr& out_i) {
      auto s = Def(inner, "s", LoadAt(w, {Int(0), Int(0)}, {16, 256}), Line(4));
      return Def(inner, "o", StoreAt(s, {i, Int(0)}, out_i), Line(5));
    });
  });
  auto hints = Hints(ProgramWith({KernelOf({w, out}, std::move(body), result)}));
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH002 line 4"}));
  EXPECT_TRUE(Has(hints[0].message, "inside the loop over 'i' (line 3)"));
  EXPECT_EQ(hints[0].fix, "load it once before the loop over 'j' (line 2) and use that tile inside the loop");
}

// ---------------------------------------------------------------- PH003

// for n in pl.range(0, 256, 64):                               line 2
//     a0 = load(a, [0, 0]) or a slice of a panel loaded above  line 3
//     b0 = load(b, [0, n])                                     line 4
//     c0 = matmul(move(a0), move(b0))
//     for k in pl.range(64, <k_stop>, 64):                     line 8
//         ak = load(a, [0, k]) or a slice of the panel          line 9
//         bk = load(b, [k, n])                                 line 10
//         c = matmul_acc(acc, move(ak), move(bk))
//     o = store(c_final, [0, n], out_iter)
ProgramPtr TiledMatmul(bool panel_in_mat, int64_t k_extent = 512) {
  auto a = TensorVar("a", {64, k_extent}, DataType::FP16);
  auto b = TensorVar("b", {k_extent, 256}, DataType::FP16);
  auto out = TensorVar("out", {64, 256});
  std::vector<StmtPtr> body;
  VarPtr panel;
  if (panel_in_mat) panel = Def(body, "panel", LoadAt(a, {Int(0), Int(0)}, {64, k_extent}, MemorySpace::Mat), Line(1));
  auto a_block = [&](std::vector<StmtPtr>& stmts, const std::string& name, const ExprPtr& k, int line) {
    if (!panel_in_mat) return Def(stmts, name, LoadAt(a, {Int(0), k}, {64, 64}, MemorySpace::Mat), Line(line));
    Attrs left = Target(MemorySpace::Left);
    return Def(stmts, name, Op("tile.extract", {panel, Int(0), k, Tuple({64, 64})}, left), Line(line));
  };
  auto left = [&](std::vector<StmtPtr>& stmts, const VarPtr& tile, int line) {
    return As<TileType>(tile->type)->memory_space == MemorySpace::Left
               ? tile
               : Def(stmts, tile->name_hint + "_l", Move(tile, MemorySpace::Left), Line(line));
  };
  auto result = ForCarrying(body, "n", 0, 256, 64, out, 2, [&](std::vector<StmtPtr>& outer, const VarPtr& n,
                                                                const VarPtr& out_iter) {
    auto a0 = a_block(outer, "a0", Int(0), 3);
    auto b0 = Def(outer, "b0", LoadAt(b, {Int(0), n}, {64, 64}, MemorySpace::Mat), Line(4));
    auto c0 = Def(outer, "c0", Op("tile.matmul", {left(outer, a0, 5), Def(outer, "r0", Move(b0, MemorySpace::Right))}),
                  Line(7));
    auto c = ForCarrying(outer, "k", 64, k_extent, 64, c0, 8, [&](std::vector<StmtPtr>& inner, const VarPtr& k,
                                                                  const VarPtr& acc) {
      auto ak = a_block(inner, "ak", k, 9);
      auto bk = Def(inner, "bk", LoadAt(b, {k, n}, {64, 64}, MemorySpace::Mat), Line(10));
      auto rk = Def(inner, "rk", Move(bk, MemorySpace::Right), Line(12));
      return Def(inner, "c", Op("tile.matmul_acc", {acc, left(inner, ak, 11), rk}), Line(13));
    });
    return Def(outer, "o", StoreAt(c, {Int(0), n}, out_iter), Line(14));
  });
  return ProgramWith({KernelOf({a, b, out}, std::move(body), result)});
}

TEST(PerfHints, MatmulOperandsLoadedAgainAndAgainAreReported) {
  auto hints = OfCode(Hints(TiledMatmul(false)), "PH003");
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH003 line 3", "PH003 line 9"}));
  EXPECT_EQ(hints[0].rule, "MatmulOperandReloaded");
  EXPECT_EQ(hints[0].message,
            "tile.load of 'a0' ([64, 64] FP16 from 'a') feeds a matmul and is reloaded in every iteration of the "
            "loop over 'n' (line 2) though it reads the same data each time; it is loaded 4 times");
  EXPECT_EQ(hints[1].message,
            "tile.load of 'ak' ([64, 64] FP16 from 'a') feeds a matmul; the loop over 'k' (line 8) loads 7 such "
            "tiles (57344 bytes), the same ones in every iteration of the loop over 'n' (line 2), so that panel is "
            "loaded 4 times");
  EXPECT_EQ(hints[1].fix,
            "load the panel once into Mat before the loop over 'n' (line 2) (it needs 57344 of the 524288 free bytes "
            "of Mat) and take each step's block from it with tile.extract");
  // A matmul operand is PH003, never also PH002.
  EXPECT_TRUE(OfCode(Hints(TiledMatmul(false)), "PH002").empty());
}

TEST(PerfHints, APanelLoadedOnceIntoMatIsNotReported) {
  EXPECT_TRUE(OfCode(Hints(TiledMatmul(true)), "PH003").empty());
  EXPECT_TRUE(OfCode(Hints(TiledMatmul(true)), "PH002").empty());
}

TEST(PerfHints, APanelTooLargeForMatIsNotReported) {
  // 127 steps of 8 KiB: more than the 512 KiB of Mat.
  auto hints = OfCode(Hints(TiledMatmul(false, 64 * 128)), "PH003");
  EXPECT_EQ(Sites(hints), (std::vector<std::string>{"PH003 line 3"}));
}

// ---------------------------------------------------------------- PH004

ProgramPtr AutoTiled(int64_t rows, int64_t cols) {
  auto x = TensorVar("x", {rows, cols});
  auto out = TensorVar("out", {rows, cols});
  auto e = Var::Make("e", x->type);
  auto s = Var::Make("s", x->type);
  auto o = Var::Make("o", out->type);
  auto body = Seq({Assign(e, Op("tensor.exp", {x})), Assign(s, Op("tensor.add", {e, x})),
                   Assign(o, Op("tensor.assemble", {out, s, Offsets({Int(0), Int(0)})})), Return({o})});
  auto kernel = Function::Make("k", FunctionType::InCore, {x, out}, {ParamDirection::In, ParamDirection::Out},
                               {out->type}, body, Line(1));
  const auto& platform = backend::Platform::Get("a2a3sim");
  return passes::ConvertTensorToTileOps(ProgramWith({kernel}), platform.Capacity(MemorySpace::Vec));
}

TEST(PerfHints, AnAutoTiledChainWithSmallBlocksIsReported) {
  // Three live FP32 tiles of 2048 columns: 24 KiB a row, so 4-row blocks fit in 184 KiB of Vec.
  auto hints = OfCode(Hints(AutoTiled(2048, 2048)), "PH004");
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH004 line 1"}));
  EXPECT_EQ(hints[0].rule, "BufferForcedSmallTile");
  EXPECT_EQ(hints[0].node, "ForStmt");
  EXPECT_EQ(hints[0].message,
            "ConvertTensorToTileOps split this element-wise chain into blocks of [4, 2048] FP32, 512 iterations: its "
            "tiles are all live at once and need 12 bytes per element, and Vec holds 188416 bytes, so blocks (powers "
            "of two dividing the data) could be no larger");
  EXPECT_TRUE(Has(hints[0].fix, "slices of at least 16 rows"));
}

TEST(PerfHints, AnAutoTiledChainWithLargeBlocksIsNotReported) {
  // 512 columns: 6 KiB a row, 16-row blocks.
  EXPECT_TRUE(OfCode(Hints(AutoTiled(2048, 512)), "PH004").empty());
  PerfHintOptions options;
  options.min_block_rows = 4;
  EXPECT_TRUE(OfCode(Hints(AutoTiled(2048, 2048), "a2a3sim", options), "PH004").empty());
}

// big = load(y, [0, 0], [big_rows, 1024]) stays live while the loop loads
// `block_rows` rows of x per iteration; addresses are allocated.
ProgramPtr NearlyFullVec(int64_t big_rows, int64_t block_rows) {
  auto x = TensorVar("x", {1024, 1024});
  auto y = TensorVar("y", {64, 1024});
  auto out = TensorVar("out", {1024, 1024});
  std::vector<StmtPtr> body;
  auto big = Def(body, "big", LoadAt(y, {Int(0), Int(0)}, {big_rows, 1024}), Line(2));
  auto looped = ForCarrying(body, "i", 0, 1024, block_rows, out, 3, [&](std::vector<StmtPtr>& loop, const VarPtr& i,
                                                                         const VarPtr& out_iter) {
    auto t = Def(loop, "t", LoadAt(x, {i, Int(0)}, {block_rows, 1024}), Line(4));
    auto sum = Def(loop, "s", Op("tile.add", {t, t}), Line(5));
    return Def(loop, "o", StoreAt(sum, {i, Int(0)}, out_iter), Line(6));
  });
  auto result = Def(body, "r", StoreAt(big, {Int(0), Int(0)}, looped), Line(7));
  auto program = ProgramWith({KernelOf({x, y, out}, std::move(body), result)});
  pass::PassContext ctx;
  ctx.set_platform(backend::Platform::Get("a2a3sim"));
  return RunPass<passes::AllocateMemoryAddrPass>(RunPass<passes::InitMemRefPass>(program), ctx);
}

TEST(PerfHints, ANearlyFullSpaceThatLeavesRoomOnlyForSmallTilesIsReported) {
  // 36 rows of 4 KiB stay live: with two 4-row tiles Vec is 96% full.
  auto hints = OfCode(Hints(NearlyFullVec(36, 4), "a2a3sim", {}, true), "PH004");
  ASSERT_EQ(Sites(hints), (std::vector<std::string>{"PH004 line 4"}));
  EXPECT_EQ(hints[0].message,
            "function 'k' uses 180224 of the 188416 bytes of Vec (95%), so tile.load of 't' ([4, 1024] FP32 from "
            "'x'), loaded in every iteration of the loop over 'i' (line 3), has no room to grow; the largest buffers "
            "of Vec: 147456 bytes ('big'); 16384 bytes ('t'); 16384 bytes ('s')");
  // Addresses are what says the space is full.
  EXPECT_TRUE(OfCode(Hints(NearlyFullVec(36, 4)), "PH004").empty());
}

TEST(PerfHints, ASpaceWithRoomOrLargeTilesIsNotReported) {
  EXPECT_TRUE(OfCode(Hints(NearlyFullVec(16, 4), "a2a3sim", {}, true), "PH004").empty());
  // 91% full, but the tiles are 16 rows of 4 KiB.
  EXPECT_TRUE(OfCode(Hints(NearlyFullVec(10, 16), "a2a3sim", {}, true), "PH004").empty());
  PerfHintOptions options;
  options.nearly_full_percent = 99;
  EXPECT_TRUE(OfCode(Hints(NearlyFullVec(36, 4), "a2a3sim", options, true), "PH004").empty());
}

// ---------------------------------------------------------------- all

TEST(PerfHints, HintsAreSortedAndUniquePerSite) {
  // Two copies of one load (as UnrollLoops leaves them) share a source line.
  auto x = TensorVar("x", {64, 1024});
  auto out = TensorVar("out", {64, 1024});
  std::vector<StmtPtr> body;
  auto t2 = Def(body, "t2", LoadAt(x, {Int(16), Int(0)}, {16, 32}), Line(9));
  auto t1 = Def(body, "t1", LoadAt(x, {Int(0), Int(0)}, {16, 32}), Line(3));
  auto t1_copy = Def(body, "t1_copy", LoadAt(x, {Int(32), Int(0)}, {16, 32}), Line(3));
  auto s = Def(body, "s", Op("tile.add", {t1, t2}), Line(10));
  auto s2 = Def(body, "s2", Op("tile.add", {s, t1_copy}), Line(11));
  auto r = Def(body, "r", StoreAt(s2, {Int(0), Int(0)}, out), Line(12));
  auto hints = Hints(ProgramWith({KernelOf({x, out}, std::move(body), r)}));
  EXPECT_EQ(Sites(hints), (std::vector<std::string>{"PH001 line 3", "PH001 line 9", "PH001 line 12"}));
}

TEST(PerfHints, OnlyCoreKernelsAreChecked) {
  auto program = CopyWindow({16, 32});
  auto kernel = program->functions.at(0);
  auto opaque = Function::Make("k", FunctionType::Opaque, kernel->params, kernel->param_directions,
                               kernel->return_types, kernel->body);
  EXPECT_TRUE(FindPerfHints(ProgramWith({opaque}), backend::Platform::Get("a2a3sim"), {}, false).empty());
}

}  // namespace
}  // namespace pypto::test
