#include "init_memref.h"

#include "memory_test_util.h"

namespace pypto::test {
namespace {

using passes::InitMemRefPass;

const char* const kHeader =
    "@pl.function(type=pl.FunctionType.InCore)\n"
    "def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
    "pl.Tensor[[16, 64], pl.FP32]:\n";

// a = load(x); e = exp(a); s = add(e, a); r = store(s, out): three Vec tiles.
ProgramPtr ElementwiseKernel() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto e = Def(body, "e", Op("tile.exp", {a}));
  auto s = Def(body, "s", Op("tile.add", {e, a}));
  auto r = Def(body, "r", Store(s, out));
  body.push_back(Return({r}));
  return ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
}

TEST(InitMemRef, DescribesItself) {
  InitMemRefPass pass;
  EXPECT_EQ(pass.name(), "InitMemRef");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::TileMemoryInferred));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::HasMemRefs));
  EXPECT_TRUE(pass.option_specs().empty());
}

TEST(InitMemRef, GivesEachTileABufferAndAnAllocAtTheTop) {
  auto out = RunPass<InitMemRefPass>(ElementwiseKernel());
  EXPECT_EQ(Printed(out),
            std::string(kHeader) +
                "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
                "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
                "    e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 0, 4096, pl.Mem.Vec, base=base_vec_1), "
                "pl.Mem.Vec] = pl.tile.exp(a)\n"
                "    s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_2\", 0, 4096, pl.Mem.Vec, base=base_vec_2), "
                "pl.Mem.Vec] = pl.tile.add(e, a)\n"
                "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)\n"
                "    return r\n");
}

TEST(InitMemRef, MatchesTheHandBuiltProgram) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  std::vector<MemRefPtr> memrefs;
  for (int k = 0; k < 3; ++k) {
    Attrs kwargs;
    kwargs.Set("memory_space", EnumAttr::Of(MemorySpace::Vec));
    auto base = Def(body, "base_vec_" + std::to_string(k), Op("tile.alloc", {Int(4096)}, kwargs));
    memrefs.push_back(MemRef::Make("mem_vec_" + std::to_string(k), MemorySpace::Vec, base, Int(0), 4096));
  }
  auto tile_type = [&](int k) {
    auto type = std::make_shared<TileType>(*TileType::Make(std::vector<int64_t>{16, 64}, DataType::FP32,
                                                            MemorySpace::Vec));
    type->memref = memrefs[k];
    return TypePtr(type);
  };
  auto a = Var::Make("a", tile_type(0));
  auto e = Var::Make("e", tile_type(1));
  auto s = Var::Make("s", tile_type(2));
  body.push_back(Assign(a, Load(x, {16, 64})));
  body.push_back(Assign(e, Op("tile.exp", {a})));
  body.push_back(Assign(s, Op("tile.add", {e, a})));
  auto r = Def(body, "r", Store(s, out));
  body.push_back(Return({r}));
  auto expected = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  // MemRefs are free variables (named before any binding site), so they are mapped onto each other.
  EXPECT_NO_THROW(AssertStructuralEqual(RunPass<InitMemRefPass>(ElementwiseKernel()), expected, true));
}

TEST(InitMemRef, SizesFollowDTypeAndPacking) {
  auto x = TensorVar("x", {16, 64}, DataType::FP16);
  auto q = TensorVar("q", {16, 63}, DataType::INT4);
  auto out = TensorVar("out", {16, 64}, DataType::FP16);
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto b = Def(body, "b", Load(q, {16, 63}));
  auto r = Def(body, "r", Store(a, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, q, out}, std::move(body), {out->type})});
  auto result = RunPass<InitMemRefPass>(program);
  auto stmts = Flatten(result->functions[0]->body);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[2])->var)->size, 16 * 64 * 2);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[3])->var)->size, (16 * 63 + 1) / 2);  // two INT4 per byte
}

// acc starts as a load, each iteration adds t, the result is stored: the
// init value, the iter_arg, the yielded value and the return var share one buffer.
ProgramPtr LoopKernel() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto init = Def(body, "init", Load(x, {16, 64}));
  auto t = Def(body, "t", Load(x, {16, 64}));
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", init->type, init);
  std::vector<StmtPtr> loop_body;
  auto next = Def(loop_body, "next", Op("tile.add", {acc, t}));
  loop_body.push_back(Yield({next}));
  auto total = Var::Make("total", init->type);
  body.push_back(ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, Seq(std::move(loop_body)), {total}));
  auto r = Def(body, "r", Store(total, out));
  body.push_back(Return({r}));
  return ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
}

TEST(InitMemRef, LoopCarriedTilesShareOneBuffer) {
  EXPECT_EQ(Printed(LoopKernel()),
            std::string(kHeader) +
                "    init: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], "
                "target_memory=pl.Mem.Vec)\n"
                "    t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], "
                "target_memory=pl.Mem.Vec)\n"
                "    for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):\n"
                "        next: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)\n"
                "        total: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(next)\n"
                "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(total, [0, 0], out)\n"
                "    return r\n");
  auto out = RunPass<InitMemRefPass>(LoopKernel());
  EXPECT_EQ(Printed(out),
            std::string(kHeader) +
                "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    init: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
                "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
                "    t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 0, 4096, pl.Mem.Vec, base=base_vec_1), "
                "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
                "    for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):\n"
                "        next: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, "
                "base=base_vec_0), pl.Mem.Vec] = pl.tile.add(acc, t)\n"
                "        total: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, "
                "base=base_vec_0), pl.Mem.Vec] = pl.yield_(next)\n"
                "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(total, [0, 0], out)\n"
                "    return r\n");
  auto stmts = Flatten(out->functions[0]->body);
  auto loop = As<ForStmt>(stmts[4]);
  ASSERT_TRUE(loop);
  EXPECT_EQ(MemRefOf(loop->iter_args[0]), MemRefOf(As<AssignStmt>(stmts[2])->var));
  EXPECT_EQ(MemRefOf(loop->return_vars[0]), MemRefOf(As<AssignStmt>(stmts[2])->var));
}

TEST(InitMemRef, InPlaceOpsViewsAndAliasesShareTheirSource) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto big = Def(body, "big", Load(x, {16, 64}));
  auto part = Def(body, "part", Load(x, {16, 32}));
  auto filled = Def(body, "filled", Op("tile.assemble", {big, part, Tuple({0, 32})}));  // writes into big
  auto flat = Def(body, "flat", Op("tile.reshape", {filled, Tuple({1, 1024})}));
  auto again = Def(body, "again", Op("tile.reshape", {flat, Tuple({16, 64})}));
  auto alias = Def(body, "alias", again);
  auto r = Def(body, "r", Store(alias, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  auto result = RunPass<InitMemRefPass>(program);
  auto stmts = Flatten(result->functions[0]->body);
  ASSERT_EQ(stmts.size(), 10u);  // two allocs, then the eight statements
  MemRefPtr shared = MemRefOf(As<AssignStmt>(stmts[2])->var);
  EXPECT_EQ(shared->name_hint, "mem_vec_0");
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[3])->var)->name_hint, "mem_vec_1");
  for (size_t i : {4u, 5u, 6u, 7u}) EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[i])->var), shared) << i;
  EXPECT_EQ(shared->size, 4096);
}

// A tile.slice window is its source's storage from the window's first
// element on: a MemRef of its own on the source's base, at that byte offset,
// spanning up to its last element.
TEST(InitMemRef, SliceKeepsItsByteOffsetIntoTheSource) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {2, 16});
  std::vector<StmtPtr> body;
  auto t = Def(body, "t", Load(x, {16, 64}));
  auto rows = Def(body, "rows", Op("tile.slice", {t, Tuple({4, 64}), Tuple({8, 0})}));
  auto cols = Def(body, "cols", Op("tile.slice", {t, Tuple({16, 16}), Tuple({0, 32})}));
  auto corner = Def(body, "corner", Op("tile.slice", {rows, Tuple({2, 16}), Tuple({1, 32})}));
  auto flat = Def(body, "flat", Op("tile.reshape", {rows, Tuple({1, 256})}));
  auto e = Def(body, "e", Op("tile.exp", {cols}));
  auto r = Def(body, "r", Store(corner, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  auto stmts = Flatten(RunPass<InitMemRefPass>(program)->functions[0]->body);
  ASSERT_EQ(stmts.size(), 10u);  // two allocs, then the eight statements
  auto memref = [&](size_t i) { return MemRefOf(As<AssignStmt>(stmts[i])->var); };
  MemRefPtr whole = memref(2);
  EXPECT_EQ(whole->name_hint, "mem_vec_0");
  EXPECT_EQ(AsConstInt(whole->byte_offset), 0);
  EXPECT_EQ(whole->size, 4096);
  struct Expected {
    size_t stmt;
    const char* name;
    int64_t offset;
    int64_t size;
  };
  // rows 8..11: 8 * 64 * 4 bytes in, 4 rows long; columns 32..47 of every
  // row: 32 * 4 bytes in, 15 rows and 16 elements long; rows 9..10 of t's
  // columns 32..47 through `rows`: (9 * 64 + 32) * 4 bytes in, one row and
  // 16 elements long.
  for (const Expected& view : {Expected{3, "mem_vec_0_view0", 2048, 1024}, Expected{4, "mem_vec_0_view1", 128, 3904},
                               Expected{5, "mem_vec_0_view2", 2432, 320}, Expected{6, "mem_vec_0_view0", 2048, 1024}}) {
    MemRefPtr m = memref(view.stmt);
    EXPECT_EQ(m->name_hint, view.name) << view.stmt;
    EXPECT_EQ(m->base, whole->base) << view.stmt;
    EXPECT_EQ(AsConstInt(m->byte_offset), view.offset) << view.stmt;
    EXPECT_EQ(m->size, view.size) << view.stmt;
  }
  EXPECT_EQ(memref(3), memref(6));  // a reshape of a view is that view
  EXPECT_EQ(memref(7)->name_hint, "mem_vec_1");
}

// A window whose origin is a loop variable starts at a byte offset computed
// from it.
TEST(InitMemRef, SliceAtADynamicOriginHasAnOffsetExpression) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {4, 64});
  std::vector<StmtPtr> body;
  auto t = Def(body, "t", Load(x, {16, 64}));
  auto i = IndexVar("i");
  std::vector<StmtPtr> loop_body;
  auto part = Def(loop_body, "part", Op("tile.slice", {t, Tuple({4, 64}), MakeTuple::Make({i, Int(0)})}));
  Def(loop_body, "stored", Store(part, out));
  body.push_back(ForStmt::Make(i, Int(0), Int(16), Int(4), {}, Seq(std::move(loop_body)), {}));
  body.push_back(Return({out}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  std::string printed = Printed(RunPass<InitMemRefPass>(program));
  EXPECT_NE(printed.find("part: pl.Tile[[4, 64], pl.FP32, pl.MemRef(\"mem_vec_0_view0\", i * 256, 1024, pl.Mem.Vec, "
                         "base=base_vec_0), pl.Mem.Vec] = pl.tile.slice(t, [4, 64], [i, 0])"),
            std::string::npos)
      << printed;
}

// In the fractal layouts of Mat, Left, Right and Acc a window off the
// origin is not one stretch of bytes.
TEST(InitMemRef, SliceOffTheOriginOfAFractalTileIsAnError) {
  auto x = TensorVar("x", {32, 32}, DataType::FP16);
  auto out = TensorVar("out", {16, 32}, DataType::FP16);
  std::vector<StmtPtr> body;
  auto t = Def(body, "t", Load(x, {32, 32}, MemorySpace::Mat));
  auto part = Def(body, "part", Op("tile.slice", {t, Tuple({16, 32}), Tuple({16, 0})}), Span("k.py", 4, 5));
  auto moved = Def(body, "moved", Op("tile.move", {part}, Target(MemorySpace::Vec)));
  auto r = Def(body, "r", Store(moved, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  Error err = PassError<InitMemRefPass>(program);
  EXPECT_EQ(err.span(), Span("k.py", 4, 5));
  EXPECT_EQ(err.message(),
            "InitMemRef: tile.slice 'part' in function 'kernel' (at k.py:4:5) takes a window of 't', whose Mat "
            "layout stores elements in fractal blocks, at a non-zero origin: the window is not one stretch of the "
            "buffer, so it cannot be a view; copy it out with tile.extract instead");
}

TEST(InitMemRef, CountsBuffersPerSpace) {
  auto a = TensorVar("a", {16, 16}, DataType::FP16);
  auto b = TensorVar("b", {16, 16}, DataType::FP16);
  auto out = TensorVar("out", {16, 16});
  std::vector<StmtPtr> body;
  auto a_mat = Def(body, "a_mat", Load(a, {16, 16}, MemorySpace::Mat));
  auto b_mat = Def(body, "b_mat", Load(b, {16, 16}, MemorySpace::Mat));
  auto a_left = Def(body, "a_left", Op("tile.move", {a_mat}, Target(MemorySpace::Left)));
  auto b_right = Def(body, "b_right", Op("tile.move", {b_mat}, Target(MemorySpace::Right)));
  auto c = Def(body, "c", Op("tile.matmul", {a_left, b_right}));
  auto r = Def(body, "r", Store(c, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("mm", {a, b, out}, std::move(body), {out->type})});
  auto result = RunPass<InitMemRefPass>(program);
  auto stmts = Flatten(result->functions[0]->body);
  std::vector<std::string> allocs;
  for (size_t i = 0; i < 5; ++i) allocs.push_back(PrintNode(stmts[i]));
  EXPECT_EQ(allocs, (std::vector<std::string>{
                        "base_mat_0: pl.Ptr[pl.Mem.Mat] = pl.tile.alloc(512, memory_space=pl.Mem.Mat)\n",
                        "base_mat_1: pl.Ptr[pl.Mem.Mat] = pl.tile.alloc(512, memory_space=pl.Mem.Mat)\n",
                        "base_left_0: pl.Ptr[pl.Mem.Left] = pl.tile.alloc(512, memory_space=pl.Mem.Left)\n",
                        "base_right_0: pl.Ptr[pl.Mem.Right] = pl.tile.alloc(512, memory_space=pl.Mem.Right)\n",
                        "base_acc_0: pl.Ptr[pl.Mem.Acc] = pl.tile.alloc(1024, memory_space=pl.Mem.Acc)\n"}));
}

// Only one branch runs: the phi and the values both branches yield share a buffer.
TEST(InitMemRef, BranchResultsShareWithWhatTheBranchesYield) {
  auto flag = ScalarVar("flag", DataType::BOOL);
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  std::vector<StmtPtr> then_body;
  auto e = Def(then_body, "e", Op("tile.exp", {a}));
  then_body.push_back(Yield({e}));
  std::vector<StmtPtr> else_body;
  auto n = Def(else_body, "n", Op("tile.neg", {a}));
  else_body.push_back(Yield({n}));
  auto phi = Var::Make("phi", a->type);
  body.push_back(IfStmt::Make(flag, Seq(std::move(then_body)), Seq(std::move(else_body)), {phi}));
  auto r = Def(body, "r", Store(phi, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {flag, x, out}, std::move(body), {out->type})});
  auto result = RunPass<InitMemRefPass>(program);
  auto stmts = Flatten(result->functions[0]->body);
  auto branch = As<IfStmt>(stmts[3]);
  ASSERT_TRUE(branch);
  MemRefPtr shared = MemRefOf(branch->return_vars[0]);
  EXPECT_EQ(shared->name_hint, "mem_vec_1");
  EXPECT_EQ(MemRefOf(As<AssignStmt>(Flatten(branch->then_body)[0])->var), shared);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(Flatten(branch->else_body)[0])->var), shared);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[2])->var)->name_hint, "mem_vec_0");
}

TEST(InitMemRef, WhileLoopCarriesShareOneBuffer) {
  auto flag = ScalarVar("flag", DataType::BOOL);
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto init = Def(body, "init", Load(x, {16, 64}));
  auto acc = IterArg::Make("acc", init->type, init);
  std::vector<StmtPtr> loop_body;
  auto next = Def(loop_body, "next", Op("tile.exp", {acc}));
  loop_body.push_back(Yield({next}));
  auto total = Var::Make("total", init->type);
  body.push_back(WhileStmt::Make(flag, {acc}, Seq(std::move(loop_body)), {total}));
  auto r = Def(body, "r", Store(total, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {flag, x, out}, std::move(body), {out->type})});
  auto result = RunPass<InitMemRefPass>(program);
  auto stmts = Flatten(result->functions[0]->body);
  ASSERT_EQ(stmts.size(), 5u);  // one alloc for the whole carry
  auto loop = As<WhileStmt>(stmts[2]);
  ASSERT_TRUE(loop);
  MemRefPtr carried = MemRefOf(As<AssignStmt>(stmts[1])->var);
  EXPECT_EQ(MemRefOf(loop->iter_args[0]), carried);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(Flatten(loop->body)[0])->var), carried);
  EXPECT_EQ(MemRefOf(loop->return_vars[0]), carried);
}

TEST(InitMemRef, LeavesOtherFunctionsAlone) {
  auto x = TensorVar("x", {16, 64});
  auto orchestration = Function::Make("main", FunctionType::Orchestration, {x}, {ParamDirection::In}, {},
                                      Seq({Return({})}));
  auto program = ProgramWith({orchestration});
  EXPECT_EQ(RunPass<InitMemRefPass>(program), program);
}

TEST(InitMemRef, RunningTwiceChangesNothing) {
  auto once = RunPass<InitMemRefPass>(LoopKernel());
  EXPECT_EQ(RunPass<InitMemRefPass>(once), once);
}

TEST(InitMemRef, TileWithoutMemorySpaceIsAnError) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})}), Span("k.py", 7, 9));
  auto r = Def(body, "r", Store(a, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  Error error = PassError<InitMemRefPass>(program);
  EXPECT_EQ(error.kind(), ErrorKind::kValue);
  EXPECT_EQ(error.message(),
            "InitMemRef: tile 'a' in function 'kernel' (at k.py:7:9) has no memory space; run InferTileMemorySpace "
            "before InitMemRef (or give the op producing it a target_memory)");
  EXPECT_EQ(error.span().begin_line, 7);
}

TEST(InitMemRef, SharedBufferAcrossSpacesIsAnError) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto init = Def(body, "init", Load(x, {16, 64}));
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", init->type, init);
  std::vector<StmtPtr> loop_body;
  auto moved = Def(loop_body, "moved", Op("tile.move", {acc}, Target(MemorySpace::Mat)));
  loop_body.push_back(Yield({moved}));
  auto total = Var::Make("total", init->type);
  body.push_back(ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, Seq(std::move(loop_body)), {total}));
  body.push_back(Return({}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body))});
  EXPECT_EQ(PassError<InitMemRefPass>(program).message(),
            "InitMemRef: tiles 'init' (Vec) and 'moved' (Mat) in function 'kernel' must share one buffer (a loop "
            "carry, a branch result, an in-place op or a view) but are in different memory spaces; insert a "
            "tile.move so that both are in one space");
}

TEST(InitMemRef, DynamicShapeIsAnError) {
  auto n = IndexVar("n");
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Var::Make("a", TileType::Make(std::vector<ExprPtr>{n, Int(64)}, DataType::FP32, MemorySpace::Vec));
  body.push_back(Assign(a, Load(x, {16, 64})));
  body.push_back(Return({}));
  auto program = ProgramWith({Kernel("kernel", {n, x, out}, std::move(body))});
  EXPECT_EQ(PassError<InitMemRefPass>(program).message(),
            "InitMemRef: tile 'a' in function 'kernel' has the dynamic shape Tile[[n, 64], FP32, Vec]; an on-chip "
            "buffer needs static extents: give the tile a static shape and put the dynamic extents in its "
            "valid_shape");
}

}  // namespace
}  // namespace pypto::test
