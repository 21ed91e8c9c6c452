// Cross-core pipes in the runtime: a cluster task (an AIC kernel and two AIV
// kernels) on the simulated cores, which give each block a fresh pipe and
// report a deadlock as the run's kernel fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include <pto/pto-inst.hpp>

#include "pypto/backend/platform.h"
#include "pypto/backend/simulator.h"
#include "pypto/runtime/kernel_args.h"
#include "pypto/runtime/runtime.h"
#include "pypto/support/error.h"

#include "cluster_kernel_util.h"

namespace pypto::pipe_test {
namespace {

using namespace pto;
// The AIC has the cube's spaces, an AIV lane Vec.
using Full = Tile<TileType::Mat, float, 8, 8, BLayout::ColMajor, 8, 8, SLayout::RowMajor, 512>;
using Half = Tile<TileType::Vec, float, 4, 8>;
constexpr int kTiles = 5;

// What the AIV lanes popped, per lane: (block, value of the half's first element).
std::mutex got_mu;
std::vector<std::pair<int, float>> got[2];

void PushTiles(__gm__ int64_t* args) {
  PYPTO_LOC(3);
  AIC_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, 2);
  Full t;
  TASSIGN(t, 0);
  const int32_t block = get_block_idx(args);
  for (int i = 0; i < kTiles; ++i) {
    // Rows 0-3 hold 100 (block) + 10 i, rows 4-7 that + 1.
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) t.At(r, c) = 100.0f * block + 10.0f * i + (r < 4 ? 0.0f : 1.0f);
    }
    PYPTO_LOC(5);
    TPUSH_TO_AIV(t, PipeSplit::UP_DOWN);
  }
}

template <bool kFree>
void PopTiles(__gm__ int64_t* args) {
  PYPTO_LOC(8);
  AIV_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, 2);
  Half t;
  TASSIGN(t, 0);
  for (int i = 0; i < kTiles; ++i) {
    PYPTO_LOC(10);
    TPOP_FROM_AIC(t, PipeSplit::UP_DOWN);
    {
      std::lock_guard lock(got_mu);
      got[get_sub_block_id(args)].push_back({get_block_idx(args), t.At(0, 0)});
    }
    if (kFree) {
      PYPTO_LOC(11);
      TFREE_TO_AIC();
    }
  }
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
  runtime::KernelSet set = runtime::KernelSet::Aic({"push_tiles", pipe_testing::ClusterKernel<PushTiles>});
  set.aiv[0] = {"pop_tiles", aiv};
  set.aiv[1] = {"pop_tiles", aiv};
  return set;
}

TEST_F(PipeRuntime, EachBlockOfAClusterTaskGetsAFreshPipe) {
  // Two blocks on one cluster, one after the other: the second starts with empty rings.
  runtime_.Submit(Mixed(pipe_testing::ClusterKernel<PopTiles<true>>), runtime::TaskArgs(), 2);
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
  runtime_.Submit(Mixed(pipe_testing::ClusterKernel<PopTiles<false>>), runtime::TaskArgs(), 1);
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
  runtime_.Submit(Mixed(pipe_testing::ClusterKernel<PopTiles<true>>), runtime::TaskArgs(), 1);
  runtime_.WaitAll();
}

}  // namespace
}  // namespace pypto::pipe_test
