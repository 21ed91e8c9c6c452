// Cross-core pipes in the runtime: a cluster task (an AIC kernel and two AIV
// kernels) on the simulated cores, which give each block a fresh pipe and
// report a deadlock as the run's kernel fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/backend/simulator.h"
#include "pypto/isa/kernel_abi.h"
#include "pypto/runtime/runtime.h"
#include "pypto/support/error.h"

#include "cluster_kernel_util.h"

namespace pypto::pipe_test {
namespace {

using namespace pto;
using Full = TileMat<float, 8, 8>;  // the AIC has the cube's spaces, an AIV lane Vec
using Half = TileVec<float, 4, 8>;
constexpr int kTiles = 5;

// What the AIV lanes popped, per lane: (block, value of the half's first element).
std::mutex got_mu;
std::vector<std::pair<int, float>> got[2];

constexpr auto Enter = pipe_testing::EnterKernel;
constexpr auto Leave = pipe_testing::LeaveKernel;

void PushTiles(const int64_t*, PyptoRtCoreContext* ctx) {
  Enter(ctx);
  AIC_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, 2, Loc{3});
  Full t;
  TASSIGN(t, 0);
  for (int i = 0; i < kTiles; ++i) {
    // Rows 0-3 hold 100 (block) + 10 i, rows 4-7 that + 1.
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) t.At(r, c) = 100.0f * ctx->block_idx + 10.0f * i + (r < 4 ? 0.0f : 1.0f);
    }
    TPUSH_TO_AIV(t, PipeSplit::UP_DOWN, Loc{5});
  }
  Leave(ctx);
}

template <bool kFree>
void PopTiles(const int64_t*, PyptoRtCoreContext* ctx) {
  Enter(ctx);
  AIV_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, 2, Loc{8});
  Half t;
  TASSIGN(t, 0);
  for (int i = 0; i < kTiles; ++i) {
    TPOP_FROM_AIC(t, PipeSplit::UP_DOWN, Loc{10});
    {
      std::lock_guard lock(got_mu);
      got[ctx->subblock_idx].push_back({ctx->block_idx, t.At(0, 0)});
    }
    if (kFree) TFREE_TO_AIC(Loc{11});
  }
  Leave(ctx);
}

class PipeRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    for (auto& lane : got) lane.clear();
  }
  backend::SimulatedCores cores_{backend::Platform::Get("a2a3"), 1};
  runtime::Runtime runtime_{cores_.Options()};
};

runtime::KernelSet Mixed(runtime::KernelFn aiv) {
  runtime::KernelSet set = runtime::KernelSet::Aic({"push_tiles", PushTiles});
  set.aiv[0] = {"pop_tiles", aiv};
  set.aiv[1] = {"pop_tiles", aiv};
  return set;
}

TEST_F(PipeRuntime, EachBlockOfAClusterTaskGetsAFreshPipe) {
  // Two blocks on one cluster, one after the other: the second starts with empty rings.
  runtime_.Submit(Mixed(PopTiles<true>), runtime::TaskArgs(), 2);
  runtime_.WaitAll();
  for (int lane = 0; lane < 2; ++lane) {
    ASSERT_EQ(got[lane].size(), 2u * kTiles) << "lane " << lane;
    std::vector<std::pair<int, float>> want;
    for (int block = 0; block < 2; ++block) {
      for (int i = 0; i < kTiles; ++i) want.push_back({block, 100.0f * block + 10.0f * i + lane});
    }
    std::sort(got[lane].begin(), got[lane].end());
    EXPECT_EQ(got[lane], want) << "lane " << lane;
  }
}

TEST_F(PipeRuntime, ADeadlockFailsTheRunWithThePipesReport) {
  runtime_.Submit(Mixed(PopTiles<false>), runtime::TaskArgs(), 1);
  try {
    runtime_.WaitAll();
    FAIL() << "the run did not fail";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("kernel 'push_tiles' (task 0) faulted in TPUSH_TO_AIV at mixed.py:5: cross-core pipe "
                           "deadlock in cluster task 'push_tiles+pop_tiles+pop_tiles'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("the consumer (AIV lane 0) popped 2 tiles but freed 0"), std::string::npos) << message;
  }
  // The next run's pipe works again.
  runtime_.Submit(Mixed(PopTiles<true>), runtime::TaskArgs(), 1);
  runtime_.WaitAll();
}

}  // namespace
}  // namespace pypto::pipe_test
