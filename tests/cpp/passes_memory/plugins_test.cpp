// The three passes as the plugin host loads them: created by name and run as
// a user pipeline after a program whose tile memory spaces are known.
#include "memory_test_util.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

TEST(MemoryPassPlugins, ProvideTheirPassesByName) {
  auto& registry = pass::PassRegistry::Global();
  EXPECT_EQ(registry.Create("InitMemRef")->name(), "InitMemRef");
  EXPECT_EQ(registry.Create("MemoryReuse")->name(), "MemoryReuse");
  auto allocate = registry.Create("AllocateMemoryAddr");
  EXPECT_EQ(allocate->name(), "AllocateMemoryAddr");
  EXPECT_TRUE(allocate->produced().Has(pass::IRProperty::AllocatedMemoryAddr));
}

TEST(MemoryPassPlugins, RunAsAPipeline) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  std::vector<StmtPtr> body;
  auto a = Def(body, "a", Load(x, {16, 64}));
  auto e = Def(body, "e", Op("tile.exp", {a}));
  auto s = Def(body, "s", Op("tile.add", {e, a}));
  auto r = Def(body, "r", Store(s, out));
  body.push_back(Return({r}));
  auto program = ProgramWith({Kernel("kernel", {x, out}, std::move(body), {out->type})});

  pass::PassManager manager(pass::ParsePipelineString(
      "name: memory\n"
      "input_properties: [SSAForm, TileMemoryInferred]\n"
      "passes: [InitMemRef, MemoryReuse, AllocateMemoryAddr]\n",
      "memory.yaml"));
  pass::PassContext ctx;
  ctx.set_verify(true);
  ctx.set_platform(backend::Platform::Get("a5sim"));
  auto result = manager.Run(program, ctx);
  EXPECT_TRUE(ctx.properties().Has(pass::IRProperty::HasMemRefs));
  EXPECT_TRUE(ctx.properties().Has(pass::IRProperty::AllocatedMemoryAddr));
  EXPECT_EQ(PrintFunction(result->functions[0]),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def kernel(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> "
            "pl.Tensor[[16, 64], pl.FP32]:\n"
            "    base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)\n"
            "    a: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)\n"
            "    e: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_1\", 4096, 4096, pl.Mem.Vec, base=base_vec_1), "
            "pl.Mem.Vec] = pl.tile.exp(a)\n"
            "    s: pl.Tile[[16, 64], pl.FP32, pl.MemRef(\"mem_vec_0\", 0, 4096, pl.Mem.Vec, base=base_vec_0), "
            "pl.Mem.Vec] = pl.tile.add(e, a)\n"
            "    r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)\n"
            "    return r\n");
}

TEST(MemoryPassPlugins, InitMemRefNeedsTileMemoryInferred) {
  pass::PassManager manager(pass::ParsePipelineString("passes: [InitMemRef]\n", "memory.yaml"));
  auto program = ProgramWith({});
  try {
    manager.Run(program);
    FAIL() << "ran without TileMemoryInferred";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "pass 'InitMemRef' (step 1 of pipeline 'memory') requires properties that do not hold: "
              "TileMemoryInferred (every tile has a memory space): no earlier pass of the pipeline produces it; no "
              "loaded pass produces it either before it, or declare it for the input (the pipeline's "
              "input_properties or PassContext::set_properties)");
  }
}

}  // namespace
}  // namespace pypto::test
