#include "insert_comm_fence.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

using passes::InsertCommFencePass;

VarPtr WindowVar(const std::string& name, const std::vector<int64_t>& shape, DataType dtype = DataType::FP32) {
  return Var::Make(name, DistributedTensorType::Make(Ints(shape), dtype));
}

ProgramPtr KernelProgram(std::vector<VarPtr> params, StmtPtr body, FunctionType type = FunctionType::InCore) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::InOut);
  return Program::Make("test", {Kernel(std::move(params), std::move(directions), std::move(body), {}, "k", type)});
}

// A kernel that stores a tile into its window and then tells rank 1 so.
ProgramPtr StoreThenNotify() {
  auto x = TensorVar("x", {16, 64});
  auto block = WindowVar("block", {16, 64});
  auto sig = WindowVar("sig", {1, 8}, DataType::INT32);
  VarPtr t, block_1;
  auto body = Seq({Let(t, "t", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})})),
                   Let(block_1, "block_1", Op("tile.store", {t, Tuple({0, 0}), block})),
                   Eval(Op("system.notify", {sig, Int(1), Tuple({0, 0}), Int(1)})), Return({})});
  return KernelProgram({x, block, sig}, body);
}

TEST(InsertCommFence, DescribesItself) {
  InsertCommFencePass pass;
  EXPECT_EQ(pass.name(), "InsertCommFence");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.produced().empty());
}

// Only InsertPipeSync follows it, which orders the fences' pipes too.
TEST(InsertCommFence, IsRegisteredByItsPluginAndRunsLastButOneInTheDefaultPipeline) {
  EXPECT_EQ(pass::PassRegistry::Global().Create("InsertCommFence")->name(), "InsertCommFence");
  for (const char* pipeline : {"default", "debug"}) {
    std::vector<std::string> names = pass::PassManager::FromPipeline(pipeline).pass_names();
    ASSERT_GE(names.size(), 2u);
    EXPECT_EQ(names[names.size() - 2], "InsertCommFence") << pipeline;
  }
}

TEST(InsertCommFence, FencesAWindowStoreBeforeTheNotifyThatReleasesIt) {
  EXPECT_EQ(Printed(RunPass<InsertCommFencePass>(StoreThenNotify())),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, x: pl.InOut[pl.Tensor[[16, 64], pl.FP32]], block: pl.InOut[pld.DistributedTensor[[16, 64], "
            "pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]]):\n"
            "    t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])\n"
            "    block_1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], block)\n"
            "    pl.system.fence()\n"
            "    pld.system.notify(sig, 1, [0, 0], 1)\n"
            "    return\n");
}

TEST(InsertCommFence, ASecondRunReturnsTheSameProgram) {
  InsertCommFencePass pass;
  pass::PassContext ctx;
  ProgramPtr once = pass.Run(StoreThenNotify(), ctx);
  EXPECT_EQ(pass.Run(once, ctx), once);
}

TEST(InsertCommFence, KernelsWithoutWindowsAreReturnedAsTheyAre) {
  auto x = TensorVar("x", {16, 64});
  auto out = TensorVar("out", {16, 64});
  VarPtr t, out_1;
  auto body = Seq({Let(t, "t", Op("tile.load", {x, Tuple({0, 0}), Tuple({16, 64})})),
                   Let(out_1, "out_1", Op("tile.store", {t, Tuple({0, 0}), out})), Return({})});
  auto program = KernelProgram({x, out}, body);
  EXPECT_EQ(RunPass<InsertCommFencePass>(program), program);
}

// `for i in pl.range(2): pld.system.wait(...)`: the wait is the whole loop
// body, with no statement after it to compare; the body becomes the wait and
// its fence.
TEST(InsertCommFence, AWaitThatIsAWholeBodyIsFencedInsideIt) {
  auto sig = WindowVar("sig", {2, 8}, DataType::INT32);
  auto i = IndexVar("i");
  auto wait = Eval(Op("system.wait", {sig, MakeTuple::Make({i, Int(0)}), Int(1)}));
  auto loop = ForStmt::Make(i, Int(0), Int(2), Int(1), {}, wait, {});
  auto program = KernelProgram({sig}, Seq({loop, Return({})}));
  auto fenced = RunPass<InsertCommFencePass>(program);
  EXPECT_EQ(Printed(fenced),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def k(self, sig: pl.InOut[pld.DistributedTensor[[2, 8], pl.INT32]]):\n"
            "    for i in pl.range(0, 2, 1):\n"
            "        pld.system.wait(sig, [i, 0], 1)\n"
            "        pl.system.fence()\n"
            "    return\n");
  EXPECT_EQ(RunPass<InsertCommFencePass>(fenced), fenced);
}

// Only kernels run on cores that share windows with peers; host-side
// functions are left alone even when they write a window.
TEST(InsertCommFence, FunctionsOtherThanKernelsAreLeftAlone) {
  auto block = WindowVar("block", {16, 64});
  VarPtr block_1;
  auto body = Seq({Let(block_1, "block_1", Op("tensor.write", {block, Tuple({0, 0}), Float(1.0)})), Return({})});
  auto program = KernelProgram({block}, body, FunctionType::Orchestration);
  EXPECT_EQ(RunPass<InsertCommFencePass>(program), program);
}

}  // namespace
}  // namespace pypto::test
