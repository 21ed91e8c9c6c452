#include "materialize_scratch_tiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/pass_test_util.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

using passes::MaterializeScratchTilesPass;

ProgramPtr KernelProgram(std::vector<VarPtr> params, StmtPtr body) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::InOut);
  return Program::Make("test", {Kernel(std::move(params), std::move(directions), std::move(body), {}, "k")});
}

// out = x^T, with the transpose's scratch operand left out.
ProgramPtr TransposeWithoutScratch() {
  auto x = TensorVar("x", {16, 32});
  auto out = TensorVar("out", {32, 16});
  Attrs in_vec;
  in_vec.Set("target_memory", EnumAttr::Of(MemorySpace::Vec));
  VarPtr a, t, out_1;
  auto body = Seq({Let(a, "a", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 32})}, in_vec)),
                   Let(t, "t", Op("tile.transpose", {a, Int(0), Int(1)})),
                   Let(out_1, "out_1", Op("tile.store", {t, Tuple({0, 0}), out})), Return({})});
  return KernelProgram({x, out}, body);
}

TEST(MaterializeScratchTiles, DescribesItself) {
  MaterializeScratchTilesPass pass;
  EXPECT_EQ(pass.name(), "MaterializeScratchTiles");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::TileMemoryInferred));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::ScratchTilesMaterialized));
}

// A scratch tile takes its op's memory space, and must exist before the
// kernel is split between the cores and its buffers are planned.
TEST(MaterializeScratchTiles, IsRegisteredByItsPluginAndRunsBeforeMemoryIsPlanned) {
  EXPECT_EQ(pass::PassRegistry::Global().Create("MaterializeScratchTiles")->name(), "MaterializeScratchTiles");
  for (const char* pipeline : {"default", "debug"}) {
    std::vector<std::string> names = pass::PassManager::FromPipeline(pipeline).pass_names();
    auto at = [&](const char* name) { return PositionOf(names, name); };
    ASSERT_LT(at("MaterializeScratchTiles"), static_cast<std::ptrdiff_t>(names.size())) << pipeline;
    EXPECT_LT(at("InferTileMemorySpace"), at("MaterializeScratchTiles")) << pipeline;
    EXPECT_LT(at("MaterializeScratchTiles"), at("ExpandMixedKernel")) << pipeline;
    EXPECT_LT(at("MaterializeScratchTiles"), at("InitMemRef")) << pipeline;
  }
}

TEST(MaterializeScratchTiles, GivesATransposeAScratchTileOfItsResultsShape) {
  EXPECT_EQ(Printed(RunPass<MaterializeScratchTilesPass>(TransposeWithoutScratch())),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.InOut[pl.Tensor[[16, 32], pl.FP32]], out: pl.InOut[pl.Tensor[[32, 16], pl.FP32]]):\n"
            "    a: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)\n"
            "    t_tmp: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 16], dtype=pl.FP32, "
            "target_memory=pl.Mem.Vec)\n"
            "    t: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(a, 0, 1, t_tmp)\n"
            "    out_1: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)\n"
            "    return\n");
}

TEST(MaterializeScratchTiles, ASecondRunReturnsTheSameProgram) {
  MaterializeScratchTilesPass pass;
  pass::PassContext ctx;
  ProgramPtr once = pass.Run(TransposeWithoutScratch(), ctx);
  EXPECT_EQ(pass.Run(once, ctx), once);
}

}  // namespace
}  // namespace pypto::test
