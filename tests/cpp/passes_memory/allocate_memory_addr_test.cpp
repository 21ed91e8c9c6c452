#include "allocate_memory_addr.h"

#include "init_memref.h"
#include "memory_reuse.h"
#include "memory_test_util.h"

namespace pypto::test {
namespace {

using passes::AllocateMemoryAddrPass;
using passes::InitMemRefPass;
using passes::MemoryReusePass;

// a = load(x); b = load(x); s = add(a, b); r = store(s, out), with source lines.
ProgramPtr TwoLoads(int64_t rows, int64_t cols, DataType dtype = DataType::FP32) {
  auto x = TensorVar("x", {rows, cols}, dtype);
  auto out = TensorVar("out", {rows, cols}, dtype);
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {rows, cols}), Span("k.py", 3, 5));
  auto b = Def(body, "b", Load(x, {rows, cols}), Span("k.py", 4, 5));
  auto s = Def(body, "s", Op("tile.add", {a, b}), Span("k.py", 5, 5));
  auto r = Def(body, "r", Store(s, out));
  body.push_back(Return({r}));
  return ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
}

// The (name, byte offset) of every buffer, in the order the tiles are defined.
std::vector<std::pair<std::string, int64_t>> Placement(const ProgramPtr& program) {
  std::vector<std::pair<std::string, int64_t>> placement;
  for (const auto& stmt : Flatten(program->functions.at(0)->body)) {
    auto assign = As<AssignStmt>(stmt);
    MemRefPtr memref = assign ? MemRefOf(assign->var) : nullptr;
    if (memref) placement.emplace_back(memref->name_hint, *AsConstInt(memref->byte_offset));
  }
  return placement;
}

ProgramPtr Allocated(const ProgramPtr& program, const std::string& platform = "a2a3sim") {
  pass::PassContext ctx;
  ctx.set_platform(backend::Platform::Get(platform));
  return RunPass<AllocateMemoryAddrPass>(RunPass<InitMemRefPass>(program), ctx);
}

TEST(AllocateMemoryAddr, DescribesItself) {
  AllocateMemoryAddrPass pass;
  EXPECT_EQ(pass.name(), "AllocateMemoryAddr");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::HasMemRefs));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::AllocatedMemoryAddr));
  EXPECT_TRUE(pass.option_specs().empty());
}

TEST(AllocateMemoryAddr, PlacesBuffersFromZeroInNameOrder) {
  auto out = Allocated(TwoLoads(16, 64));
  EXPECT_EQ(PrintFunction(out->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
            "pl.Tensor[[16, 64], pl.FP32]:\n"
            "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
            "    b: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 4096, 4096, pl.Mem.Vec, base=base_vec_1), "
            "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
            "    s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_2\", 8192, 4096, pl.Mem.Vec, base=base_vec_2), "
            "pl.Mem.Vec] = pl.tile.add(a, b)\n"
            "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)\n"
            "    return r\n");
}

TEST(AllocateMemoryAddr, AlignsEveryAddress) {
  // [3, 5] FP16 is stored as 3 rows of 32 bytes (whole lines), so the next buffer starts 96 bytes on.
  auto out = Allocated(TwoLoads(3, 5, DataType::FP16));
  EXPECT_EQ(Placement(out), (std::vector<std::pair<std::string, int64_t>>{
                                {"mem_vec_0", 0}, {"mem_vec_1", 96}, {"mem_vec_2", 192}}));
}

TEST(AllocateMemoryAddr, EachSpaceStartsAtZero) {
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
  auto result = Allocated(ProgramWith({Kernel("kernel", {a, b, out}, std::move(body), {out->type})}));
  EXPECT_EQ(Placement(result), (std::vector<std::pair<std::string, int64_t>>{{"mem_mat_0", 0},
                                                                             {"mem_mat_1", 512},
                                                                             {"mem_left_0", 0},
                                                                             {"mem_right_0", 0},
                                                                             {"mem_acc_0", 0}}));
}

TEST(AllocateMemoryAddr, ReuseShrinksTheFootprint) {
  pass::PassContext ctx;
  auto reused = RunPass<MemoryReusePass>(RunPass<InitMemRefPass>(TwoLoads(16, 64)));
  auto out = RunPass<AllocateMemoryAddrPass>(reused, ctx);
  // s takes a's buffer: add may write over the inputs it reads last.
  EXPECT_EQ(Placement(out), (std::vector<std::pair<std::string, int64_t>>{
                                {"mem_vec_0", 0}, {"mem_vec_1", 4096}, {"mem_vec_0", 0}}));
}

// a = load(x); b = load(x); v = rows 8..11 of b; r = store(v, out)
ProgramPtr SliceOfTheSecondLoad() {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {4, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto b = Def(body, "b", Load(x, {16, 64}));
  auto v = Def(body, "v", Op("tile.slice", {b, Tuple({4, 64}), Tuple({8, 0})}));
  auto s = Def(body, "s", Op("tile.add", {v, v}));
  auto r = Def(body, "r", Store(s, out));
  body.push_back(Return({r}));
  return ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
}

// A view moves with its buffer: b lands at 4096, so rows 8..11 of b at
// 4096 + 8 * 64 * 4.
TEST(AllocateMemoryAddr, ViewsMoveWithTheirBuffer) {
  auto out = Allocated(SliceOfTheSecondLoad());
  EXPECT_EQ(Placement(out), (std::vector<std::pair<std::string, int64_t>>{{"mem_vec_0", 0},
                                                                          {"mem_vec_1", 4096},
                                                                          {"mem_vec_1_view0", 6144},
                                                                          {"mem_vec_2", 8192}}));
  pass::PassContext ctx;
  EXPECT_EQ(RunPass<AllocateMemoryAddrPass>(out, ctx), out);
}

TEST(AllocateMemoryAddr, RunningTwiceChangesNothing) {
  auto once = Allocated(TwoLoads(16, 64));
  pass::PassContext ctx;
  EXPECT_EQ(RunPass<AllocateMemoryAddrPass>(once, ctx), once);
}

// Three [64, 256] FP32 tiles need 196608 bytes of Vec: more than a2a3's
// 188416, less than a5's 245760.
TEST(AllocateMemoryAddr, CapacityComesFromThePlatform) {
  EXPECT_EQ(Placement(Allocated(TwoLoads(64, 256), "a5sim")).back().second, 131072);
  pass::PassContext ctx;
  ctx.set_platform(backend::Platform::Get("a2a3"));
  Error error = PassError<AllocateMemoryAddrPass>(RunPass<InitMemRefPass>(TwoLoads(64, 256)), ctx);
  EXPECT_EQ(error.message().substr(0, 80),
            "AllocateMemoryAddr: function 'kernel' needs 196608 bytes of Vec but platform 'a2");
}

TEST(AllocateMemoryAddr, ExhaustionNamesTheSpaceTheBytesAndTheLargestTiles) {
  Error error = PassError<AllocateMemoryAddrPass>(RunPass<InitMemRefPass>(TwoLoads(128, 256)));
  EXPECT_EQ(error.kind(), ErrorKind::kValue);
  EXPECT_EQ(error.message(),
            "AllocateMemoryAddr: function 'kernel' needs 393216 bytes of Vec but platform 'a2a3sim' has 188416; the "
            "largest live tiles in Vec:\n"
            "  131072 bytes: 'a' Tile[[128, 256], FP32, Vec] at k.py:3:5\n"
            "  131072 bytes: 'b' Tile[[128, 256], FP32, Vec] at k.py:4:5\n"
            "  131072 bytes: 's' Tile[[128, 256], FP32, Vec] at k.py:5:5\n"
            "use smaller tiles, or a loop over blocks of the data (pl.range with tile-sized slices) so that fewer "
            "bytes are live at once");
  EXPECT_EQ(error.span().filename, "k.py");
  EXPECT_EQ(error.span().begin_line, 3);
}

TEST(AllocateMemoryAddr, ExhaustionListsEveryTileOfASharedBuffer) {
  auto reused = RunPass<MemoryReusePass>(RunPass<InitMemRefPass>(TwoLoads(128, 256)));
  Error error = PassError<AllocateMemoryAddrPass>(reused);
  EXPECT_EQ(error.message(),
            "AllocateMemoryAddr: function 'kernel' needs 262144 bytes of Vec but platform 'a2a3sim' has 188416; the "
            "largest live tiles in Vec:\n"
            "  131072 bytes: 'a' Tile[[128, 256], FP32, Vec] at k.py:3:5, 's' Tile[[128, 256], FP32, Vec] at "
            "k.py:5:5\n"
            "  131072 bytes: 'b' Tile[[128, 256], FP32, Vec] at k.py:4:5\n"
            "use smaller tiles, or a loop over blocks of the data (pl.range with tile-sized slices) so that fewer "
            "bytes are live at once");
}

// The error points at the largest buffer's first tile, whatever the name order.
TEST(AllocateMemoryAddr, ExhaustionPointsAtTheLargestBufferAndCountsTheRest) {
  auto x = TensorVar("x", {128, 512});
  auto out = TensorVar("out", {128, 512});
  std::vector<StmtPtr> body;
  std::vector<VarPtr> tiles;
  for (int k = 0; k < 4; ++k) {
    tiles.push_back(Def(body, "t" + std::to_string(k), Load(x, {8, 64}), Span("k.py", 10 + k, 5)));
  }
  auto big = Def(body, "big", Load(x, {128, 512}), Span("k.py", 20, 5));
  for (const auto& tile : tiles) Def(body, tile->name_hint + "_out", Store(tile, out));
  auto r = Def(body, "r", Store(big, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});
  Error error = PassError<AllocateMemoryAddrPass>(RunPass<InitMemRefPass>(program));
  EXPECT_EQ(error.message(),
            "AllocateMemoryAddr: function 'kernel' needs 270336 bytes of Vec but platform 'a2a3sim' has 188416; the "
            "largest live tiles in Vec:\n"
            "  262144 bytes: 'big' Tile[[128, 512], FP32, Vec] at k.py:20:5\n"
            "  2048 bytes: 't0' Tile[[8, 64], FP32, Vec] at k.py:10:5\n"
            "  2048 bytes: 't1' Tile[[8, 64], FP32, Vec] at k.py:11:5\n"
            "  and 2 more no larger than these\n"
            "use smaller tiles, or a loop over blocks of the data (pl.range with tile-sized slices) so that fewer "
            "bytes are live at once");
  EXPECT_EQ(error.span().begin_line, 20);
}

}  // namespace
}  // namespace pypto::test
