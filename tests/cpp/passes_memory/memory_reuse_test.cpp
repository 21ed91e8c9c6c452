#include "memory_reuse.h"

#include "init_memref.h"
#include "memory_test_util.h"

namespace pypto::test {
namespace {

using passes::InitMemRefPass;
using passes::MemoryReusePass;

const char* const kHeader =
    "@pl.function(type=pl.FunctionType.InCore)\n"
    "def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
    "pl.Tensor[[16, 64], pl.FP32]:\n";

ProgramPtr KernelOf(const VarPtr& x, const VarPtr& out, std::vector<StmtPtr> body, const VarPtr& result) {
  auto r = Def(body, "r", Store(result, out));
  body.push_back(Return({r}));
  return ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
}

// InitMemRef, then MemoryReuse.
ProgramPtr Reused(const ProgramPtr& program) { return RunPass<MemoryReusePass>(RunPass<InitMemRefPass>(program)); }

// The MemRef names of the tiles the top-level statements define, in order.
std::vector<std::string> BufferNames(const ProgramPtr& program) {
  std::vector<std::string> names;
  for (const auto& stmt : Flatten(program->functions.at(0)->body)) {
    auto assign = As<AssignStmt>(stmt);
    if (assign && MemRefOf(assign->var)) names.push_back(MemRefOf(assign->var)->name_hint);
  }
  return names;
}

size_t AllocCount(const ProgramPtr& program) {
  size_t count = 0;
  for (const auto& stmt : Flatten(program->functions.at(0)->body)) {
    auto assign = As<AssignStmt>(stmt);
    auto call = assign ? As<Call>(assign->value) : nullptr;
    if (call && call->callee_name() == "tile.alloc") ++count;
  }
  return count;
}

// a = load(x); e = exp(a); s = add(e, a); r = store(s, out)
ProgramPtr Chain() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto e = Def(body, "e", Op("tile.exp", {a}));
  auto s = Def(body, "s", Op("tile.add", {e, a}));
  return KernelOf(x, out, std::move(body), s);
}

TEST(MemoryReuse, DescribesItself) {
  MemoryReusePass pass;
  EXPECT_EQ(pass.name(), "MemoryReuse");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::HasMemRefs));
  EXPECT_TRUE(pass.option_specs().empty());
}

TEST(MemoryReuse, ResultTakesTheBufferOfAnInputItsOpLastReads) {
  auto out = Reused(Chain());
  EXPECT_EQ(Printed(out),
            std::string(kHeader) +
                "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
                "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
                "    e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 0, 4096, pl.Mem.Vec, base=base_vec_1), "
                "pl.Mem.Vec] = pl.tile.exp(a)\n"
                "    s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
                "pl.Mem.Vec] = pl.tile.add(e, a)\n"
                "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)\n"
                "    return r\n");
}

// recip must not write over its input, so its result stays apart from it;
// a later add may take the dead input's buffer.
TEST(MemoryReuse, NotInplaceSafeOpsKeepTheirResultApart) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto t = Def(body, "t", Op("tile.recip", {a}));
  auto u = Def(body, "u", Op("tile.add", {t, t}));
  auto out_program = Reused(KernelOf(x, out, std::move(body), u));
  EXPECT_EQ(BufferNames(out_program), (std::vector<std::string>{"mem_vec_0", "mem_vec_1", "mem_vec_0"}));
  EXPECT_EQ(AllocCount(out_program), 2u);
}

TEST(MemoryReuse, InPlaceSafeOpsReuseTheirDyingInput) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto t = Def(body, "t", Op("tile.exp", {a}));
  auto u = Def(body, "u", Op("tile.exp", {t}));
  auto out_program = Reused(KernelOf(x, out, std::move(body), u));
  EXPECT_EQ(BufferNames(out_program), (std::vector<std::string>{"mem_vec_0", "mem_vec_0", "mem_vec_0"}));
  EXPECT_EQ(AllocCount(out_program), 1u);
}

// w is loaded before the loop and read in every iteration, so it lives to
// the loop's end: the tile the body defines may not take its buffer, though
// the body's own tiles share within an iteration.
TEST(MemoryReuse, ValuesReadInALoopLiveToItsEnd) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto w = Def(body, "w", Load(x, {16, 64}));
  auto i = IndexVar("i");
  std::vector<StmtPtr> loop_body;
  auto t = Def(loop_body, "t", Op("tile.add", {w, w}));
  auto u = Def(loop_body, "u", Op("tile.exp", {t}));
  Def(loop_body, "stored", Store(u, out));
  body.push_back(ForStmt::Make(i, Int(0), Int(4), Int(1), {}, Seq(std::move(loop_body)), {}));
  body.push_back(Return({out}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  auto result = Reused(program);
  EXPECT_EQ(Printed(result),
            std::string(kHeader) +
                "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
                "    w: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
                "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
                "    for i in pl.range(0, 4, 1):\n"
                "        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 0, 4096, pl.Mem.Vec, "
                "base=base_vec_1), pl.Mem.Vec] = pl.tile.add(w, w)\n"
                "        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 0, 4096, pl.Mem.Vec, "
                "base=base_vec_1), pl.Mem.Vec] = pl.tile.exp(t)\n"
                "        stored: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], out)\n"
                "    return out\n");
}

// The carried buffer lives across the whole loop; a tile loaded before the
// loop and dead before it may still be shared with a tile after it.
TEST(MemoryReuse, LoopCarriedBuffersLiveAcrossTheLoop) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto init = Def(body, "init", Load(x, {16, 64}));
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", init->type, init);
  std::vector<StmtPtr> loop_body;
  auto step = Def(loop_body, "step", Load(x, {16, 64}));
  auto next = Def(loop_body, "next", Op("tile.add", {acc, step}));
  loop_body.push_back(Yield({next}));
  auto total = Var::Make("total", init->type);
  body.push_back(ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, Seq(std::move(loop_body)), {total}));
  auto after = Def(body, "after", Op("tile.exp", {total}));
  auto result = Reused(KernelOf(x, out, std::move(body), after));
  auto stmts = Flatten(result->functions[0]->body);
  auto loop = As<ForStmt>(stmts[3]);
  ASSERT_TRUE(loop);
  auto loop_stmts = Flatten(loop->body);
  MemRefPtr carried = MemRefOf(As<AssignStmt>(stmts[2])->var);
  EXPECT_EQ(carried->name_hint, "mem_vec_0");
  EXPECT_EQ(MemRefOf(loop->iter_args[0]), carried);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(loop_stmts[0])->var)->name_hint, "mem_vec_1");  // step: apart from acc
  EXPECT_EQ(MemRefOf(As<AssignStmt>(loop_stmts[1])->var), carried);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[4])->var), carried);  // after: exp in place of the dead total
  EXPECT_EQ(AllocCount(result), 2u);
}

// First-fit-decreasing: the large buffer is placed first and a smaller dead
// one can share it, whatever its shape and dtype.
TEST(MemoryReuse, SmallerBuffersOfOtherShapesShareALargerOne) {
  auto x = TensorVar("x", {16, 64});
  auto y = TensorVar("y", {8, 16}, DataType::FP16);
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto small = Def(body, "small", Load(y, {8, 16}));
  auto small_exp = Def(body, "small_exp", Op("tile.exp", {small}));
  auto ys = Def(body, "ys", Store(small_exp, y));
  auto big = Def(body, "big", Load(x, {16, 64}));
  auto program = ProgramWith(
      {Kernel("kernel", {x, y, out}, {body[0], body[1], body[2], body[3], Assign(Var::Make("r", out->type),
                                                                                   Store(big, out)),
                                       Return({ys})},
              {y->type})});
  auto result = Reused(program);
  // small and small_exp (256 bytes each) join big's 4096-byte buffer, the one allocation left.
  EXPECT_EQ(BufferNames(result), (std::vector<std::string>{"mem_vec_2", "mem_vec_2", "mem_vec_2"}));
  EXPECT_EQ(PrintNode(Flatten(result->functions[0]->body)[0]),
            "base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n");
  EXPECT_EQ(AllocCount(result), 1u);
}

// Tiles of the two branches never run together, so they may share; a tile
// read in one branch is dead in the other.
TEST(MemoryReuse, BranchesShareWithEachOther) {
  auto flag = ScalarVar("flag", DataType::BOOL);
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  std::vector<StmtPtr> then_body;
  auto t1 = Def(then_body, "t1", Op("tile.recip", {a}));
  Def(then_body, "s1", Store(t1, out));
  std::vector<StmtPtr> else_body;
  auto t2 = Def(else_body, "t2", Op("tile.recip", {a}));
  Def(else_body, "s2", Store(t2, out));
  body.push_back(IfStmt::Make(flag, Seq(std::move(then_body)), Seq(std::move(else_body))));
  body.push_back(Return({out}));
  auto program = ProgramWith({Kernel("kernel", {flag, x, out}, std::move(body), {out->type})});
  auto result = Reused(program);
  auto stmts = Flatten(result->functions[0]->body);
  auto branch = As<IfStmt>(stmts[3]);
  ASSERT_TRUE(branch);
  EXPECT_EQ(MemRefOf(As<AssignStmt>(stmts[2])->var)->name_hint, "mem_vec_0");
  EXPECT_EQ(MemRefOf(As<AssignStmt>(Flatten(branch->then_body)[0])->var)->name_hint, "mem_vec_1");
  // t2 may not overwrite a (recip is not in-place safe) but takes t1's buffer.
  EXPECT_EQ(MemRefOf(As<AssignStmt>(Flatten(branch->else_body)[0])->var)->name_hint, "mem_vec_1");
  EXPECT_EQ(AllocCount(result), 2u);
}

TEST(MemoryReuse, SpacesNeverShare) {
  auto a = TensorVar("a", {16, 16}, DataType::FP16);
  auto out = TensorVar("out", {16, 16}, DataType::FP16);
  std::vector<StmtPtr> body;
  auto a_mat = Def(body, "a_mat", Load(a, {16, 16}, MemorySpace::Mat));
  auto a_vec = Def(body, "a_vec", Load(a, {16, 16}, MemorySpace::Vec));
  auto result = Reused(KernelOf(a, out, std::move(body), a_vec));
  EXPECT_EQ(BufferNames(result), (std::vector<std::string>{"mem_mat_0", "mem_vec_0"}));
  EXPECT_EQ(AllocCount(result), 2u);
}

// b takes a's buffer (exp may write over the input it reads last); the view
// of b moves along, onto a's base at its offset inside b.
TEST(MemoryReuse, ViewsMoveOntoTheBufferTheirsJoins) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {4, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto b = Def(body, "b", Op("tile.exp", {a}));
  auto v = Def(body, "v", Op("tile.slice", {b, Tuple({4, 64}), Tuple({8, 0})}));
  auto r = Def(body, "r", Store(v, out));
  body.push_back(Return({r}));
  auto result = Reused(ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})}));
  EXPECT_EQ(Printed(result),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 64], pl.FP32]]) -> "
            "pl.Tensor[[4, 64], pl.FP32]:\n"
            "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
            "    b: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.exp(a)\n"
            "    v: pl.Tile[[4, 64], pl.FP32, pl.MemRef(\"mem_vec_0_view0\", 2048, 1024, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.slice(b, [4, 64], [8, 0])\n"
            "    r: pl.Tensor[[4, 64], pl.FP32] = pl.tile.store(v, [0, 0], out)\n"
            "    return r\n");
}

TEST(MemoryReuse, RunningTwiceChangesNothing) {
  auto once = Reused(Chain());
  EXPECT_EQ(RunPass<MemoryReusePass>(once), once);
}

}  // namespace
}  // namespace pypto::test
