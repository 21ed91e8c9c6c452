// Cross-core pipes (sdk/include/pypto/isa/pipe.h, SimPipe): an AIC thread and
// one or two AIV threads of one cluster, run as the runtime runs a cluster
// task (one thread per core, Begin before, Finish as each kernel returns).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <pto/pto-inst.hpp>

#include "pypto/backend/sim_pipe.h"

PYPTO_ISA_DEFINE_CURRENT_CORE()

namespace pypto::pipe_test {
namespace {

using namespace pto;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kAic = 1;
constexpr uint32_t kAiv0 = 2;
constexpr uint32_t kAiv1 = 4;
constexpr const char* kKernel = "mixed_aic+mixed_aiv";

// One cluster: three cores with every space, and their pipe.
class Cluster {
 public:
  explicit Cluster(double timeout_s = 30.0) : pipe_(timeout_s) {
    for (int m = 0; m < SimPipe::kMembers; ++m) {
      for (int s = 0; s < kNumTileTypes; ++s) {
        buffers_[m][s].assign(kCapacity, 0);
        cores_[m].buffer[s] = buffers_[m][s].data();
        cores_[m].capacity[s] = kCapacity;
      }
      cores_[m].pipe = &pipe_;
      cores_[m].cluster_member = m;
    }
  }

  // Runs kernels[m] for each member m in `members` on its own thread.
  void Run(uint32_t members, const std::function<void()> (&kernels)[SimPipe::kMembers]) {
    pipe_.Begin(kKernel, members);
    std::vector<std::thread> threads;
    for (int m = 0; m < SimPipe::kMembers; ++m) {
      if (!((members >> m) & 1u)) continue;
      threads.emplace_back([this, m, &kernels] {
        SetCurrentCore(&cores_[m]);
        kernels[m]();
        SetCurrentCore(nullptr);
        pipe_.Finish(m);
      });
    }
    for (auto& t : threads) t.join();
  }

  SimCore& core(int member) { return cores_[member]; }

 private:
  static constexpr uint64_t kCapacity = 64 * 1024;
  SimPipe pipe_;
  SimCore cores_[SimPipe::kMembers];
  std::vector<unsigned char> buffers_[SimPipe::kMembers][kNumTileTypes];
};

template <typename TileT>
void Fill(TileT& t, float base) {
  for (int r = 0; r < TileT::kRows; ++r) {
    for (int c = 0; c < TileT::kCols; ++c) t.At(r, c) = base + static_cast<float>(r * TileT::kCols + c);
  }
}

// The value Fill(t, base) put at (r, c) of a tile of `cols` columns.
float Filled(float base, int r, int c, int cols) { return base + static_cast<float>(r * cols + c); }

template <typename TileT>
std::vector<float> Values(const TileT& t) {
  std::vector<float> out;
  for (int r = 0; r < t.GetValidRow(); ++r) {
    for (int c = 0; c < t.GetValidCol(); ++c) out.push_back(t.At(r, c));
  }
  return out;
}

std::string Detail(const SimCore& core) { return core.fault.detail; }

// ---- Order and content through rings of 1, 2 and 4 slots.

class Slots : public ::testing::TestWithParam<int> {};

TEST_P(Slots, TilesArriveInOrderAndIntact) {
  const int slots = GetParam();
  constexpr int kTiles = 12;
  using T = Tile<TileType::Vec, float, 8, 16>;
  Cluster cluster;
  std::vector<std::vector<float>> got;
  std::function<void()> kernels[3] = {
      [&] {
        AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, slots);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < kTiles; ++i) {
          Fill(t, 1000.0f * i);
          TPUSH_TO_AIV(t, PipeSplit::NONE);
        }
      },
      [&] {
        AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, slots);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < kTiles; ++i) {
          TPOP_FROM_AIC(t, PipeSplit::NONE);
          got.push_back(Values(t));
          TFREE_TO_AIC();
        }
      },
      {}};
  cluster.Run(kAic | kAiv0, kernels);
  ASSERT_FALSE(cluster.core(0).faulted()) << Detail(cluster.core(0));
  ASSERT_FALSE(cluster.core(1).faulted()) << Detail(cluster.core(1));
  ASSERT_EQ(got.size(), static_cast<size_t>(kTiles));
  for (int i = 0; i < kTiles; ++i) {
    T want;
    std::vector<float> storage(T::kSize);
    want.data_ = storage.data();
    Fill(want, 1000.0f * i);
    EXPECT_EQ(got[i], Values(want)) << "tile " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Pipe, Slots, ::testing::Values(1, 2, 4),
                         [](const auto& info) { return std::to_string(info.param) + "Slots"; });

// ---- C2V splits to two lanes, and V2C gathers from them.

class Split : public ::testing::TestWithParam<std::tuple<PipeSplit, int>> {};

std::string SplitName(const ::testing::TestParamInfo<std::tuple<PipeSplit, int>>& info) {
  const char* names[] = {"None", "UpDown", "LeftRight"};
  return names[static_cast<int>(std::get<0>(info.param))] + std::to_string(std::get<1>(info.param)) + "Slots";
}

TEST_P(Split, C2VHandsEachLaneItsPart) {
  const auto [split, slots] = GetParam();
  constexpr int kTiles = 6;
  using Full = Tile<TileType::Vec, float, 16, 8>;
  // NONE: the whole tile; a split: its half in the box.
  using Half = Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Cluster cluster;
  std::vector<std::vector<float>> got[2];
  auto lane_kernel = [&](int lane) {
    return [&, lane] {
      AIV_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, slots);
      Half t(0, 0);
      TASSIGN(t, 0);
      for (int i = 0; i < kTiles; ++i) {
        TPOP_FROM_AIC(t, split);
        got[lane].push_back(Values(t));
        TFREE_TO_AIC();
      }
    };
  };
  std::function<void()> kernels[3] = {[&] {
                                        AIC_INITIALIZE_PIPE(DIR_C2V, Full::kBytes, slots);
                                        Full t;
                                        TASSIGN(t, 0);
                                        for (int i = 0; i < kTiles; ++i) {
                                          Fill(t, 1000.0f * i);
                                          TPUSH_TO_AIV(t, split);
                                        }
                                      },
                                      lane_kernel(0), lane_kernel(1)};
  cluster.Run(kAic | kAiv0 | kAiv1, kernels);
  for (int m = 0; m < 3; ++m) ASSERT_FALSE(cluster.core(m).faulted()) << m << ": " << Detail(cluster.core(m));
  for (int lane = 0; lane < 2; ++lane) {
    ASSERT_EQ(got[lane].size(), static_cast<size_t>(kTiles));
    for (int i = 0; i < kTiles; ++i) {
      std::vector<float> want;
      int r0 = split == PipeSplit::UP_DOWN ? 8 * lane : 0;
      int c0 = split == PipeSplit::LEFT_RIGHT ? 4 * lane : 0;
      int rows = split == PipeSplit::UP_DOWN ? 8 : 16;
      int cols = split == PipeSplit::LEFT_RIGHT ? 4 : 8;
      for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < cols; ++c) want.push_back(Filled(1000.0f * i, r0 + r, c0 + c, 8));
      }
      EXPECT_EQ(got[lane][i], want) << "lane " << lane << ", tile " << i;
    }
  }
}

TEST_P(Split, V2CGathersTheLanesParts) {
  const auto [split, slots] = GetParam();
  constexpr int kTiles = 6;
  using Full = Tile<TileType::Mat, float, 16, 8, BLayout::ColMajor, 16, 8, SLayout::RowMajor, 512>;
  // A lane's part, in a box the size of the whole.
  using Part = Tile<TileType::Vec, float, 16, 8, BLayout::RowMajor, DYNAMIC, DYNAMIC>;
  Cluster cluster;
  std::vector<std::vector<float>> got;
  auto lane_kernel = [&](int lane) {
    return [&, lane] {
      AIV_INITIALIZE_PIPE(DIR_V2C, Full::kBytes, slots);
      int rows = split == PipeSplit::UP_DOWN ? 8 : 16;
      int cols = split == PipeSplit::LEFT_RIGHT ? 4 : 8;
      Part t(rows, cols);
      TASSIGN(t, 0);
      for (int i = 0; i < kTiles; ++i) {
        // Lane l holds part l of tile i (NONE: both hold all of it).
        int r0 = split == PipeSplit::UP_DOWN ? 8 * lane : 0;
        int c0 = split == PipeSplit::LEFT_RIGHT ? 4 * lane : 0;
        for (int r = 0; r < rows; ++r) {
          for (int c = 0; c < cols; ++c) t.At(r, c) = Filled(1000.0f * i, r0 + r, c0 + c, 8);
        }
        TPUSH_TO_AIC(t, split);
      }
    };
  };
  std::function<void()> kernels[3] = {[&] {
                                        AIC_INITIALIZE_PIPE(DIR_V2C, Full::kBytes, slots);
                                        Full t;
                                        TASSIGN(t, 0);
                                        for (int i = 0; i < kTiles; ++i) {
                                          TPOP_FROM_AIV(t, split);
                                          got.push_back(Values(t));
                                          TFREE_TO_AIV();
                                        }
                                      },
                                      lane_kernel(0), lane_kernel(1)};
  cluster.Run(kAic | kAiv0 | kAiv1, kernels);
  for (int m = 0; m < 3; ++m) ASSERT_FALSE(cluster.core(m).faulted()) << m << ": " << Detail(cluster.core(m));
  ASSERT_EQ(got.size(), static_cast<size_t>(kTiles));
  for (int i = 0; i < kTiles; ++i) {
    std::vector<float> want;
    for (int r = 0; r < 16; ++r) {
      for (int c = 0; c < 8; ++c) want.push_back(Filled(1000.0f * i, r, c, 8));
    }
    EXPECT_EQ(got[i], want) << "tile " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Pipe, Split,
                         ::testing::Combine(::testing::Values(PipeSplit::NONE, PipeSplit::UP_DOWN,
                                                              PipeSplit::LEFT_RIGHT),
                                            ::testing::Values(1, 2, 4)),
                         SplitName);

// ---- Back-pressure: a full ring holds the producer until a free.

TEST(Pipe, FullRingBlocksTheProducerUntilAFree) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster;
  std::atomic<int> pushed{0};
  std::vector<float> third;
  bool blocked_while_full = false;
  std::function<void()> kernels[3] = {
      [&] {
        AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < 3; ++i) {
          Fill(t, 100.0f * i);
          TPUSH_TO_AIV(t, PipeSplit::NONE);
          pushed.fetch_add(1);
        }
      },
      [&] {
        AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        TPOP_FROM_AIC(t, PipeSplit::NONE);
        TPOP_FROM_AIC(t, PipeSplit::NONE);
        // Both slots are popped but held: the third push must wait, however long.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        blocked_while_full = pushed.load() == 2;
        TFREE_TO_AIC();
        TPOP_FROM_AIC(t, PipeSplit::NONE);
        third = Values(t);
        TFREE_TO_AIC();
        TFREE_TO_AIC();
      },
      {}};
  cluster.Run(kAic | kAiv0, kernels);
  ASSERT_FALSE(cluster.core(0).faulted()) << Detail(cluster.core(0));
  ASSERT_FALSE(cluster.core(1).faulted()) << Detail(cluster.core(1));
  EXPECT_TRUE(blocked_while_full);
  EXPECT_EQ(pushed.load(), 3);
  ASSERT_EQ(third.size(), 32u);
  EXPECT_EQ(third[0], 200.0f);
  EXPECT_EQ(third[31], 231.0f);
}

// ---- Waits that cannot end: a fault with the pipe's report, not a hang.

TEST(Pipe, MissingFreeIsADeadlockWithAReport) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster(/*timeout_s=*/30.0);
  int pops_done = 0;
  std::function<void()> kernels[3] = {
      [&] {
        AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < 4; ++i) {
          PYPTO_LOC(17);
          TPUSH_TO_AIV(t, PipeSplit::NONE);
        }
      },
      [&] {
        AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < 4; ++i) {
          PYPTO_LOC(23);
          TPOP_FROM_AIC(t, PipeSplit::NONE);
          if (!cluster.core(1).faulted()) ++pops_done;
        }
      },
      {}};
  auto start = Clock::now();
  cluster.Run(kAic | kAiv0, kernels);
  // Found when both cores wait, not at the 30 s timeout.
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(pops_done, 2);
  const SimCore& aic = cluster.core(0);
  ASSERT_TRUE(aic.faulted());
  EXPECT_EQ(aic.fault.kind, FaultKind::Pipe);
  EXPECT_STREQ(aic.fault.instruction, "TPUSH_TO_AIV");
  EXPECT_EQ(aic.fault.line, 17u);
  EXPECT_EQ(Detail(aic),
            "cross-core pipe deadlock in cluster task 'mixed_aic+mixed_aiv': every core of the cluster is waiting on "
            "the pipe or has finished, so no wait can end. the AIC: waits in TPUSH_TO_AIV for a free slot of ring "
            "C2V lane 0 (pushed 2, popped 2, freed 0, 2 of 2 slots in use): the consumer (AIV lane 0) popped 2 "
            "tiles but freed 0: a TPOP_FROM_AIC without its TFREE_TO_AIC keeps its slot, and the ring fills up; "
            "free every popped tile once it is used. AIV lane 0: waits in TPOP_FROM_AIC for a tile of ring C2V "
            "lane 0 (pushed 2, popped 2, freed 0, 2 of 2 slots in use): the producer (the AIC) waits elsewhere "
            "before pushing; see its wait.");
  const SimCore& aiv = cluster.core(1);
  ASSERT_TRUE(aiv.faulted());
  EXPECT_STREQ(aiv.fault.instruction, "TPOP_FROM_AIC");
  EXPECT_EQ(aiv.fault.line, 23u);
  EXPECT_EQ(Detail(aiv), Detail(aic));
  // The pipe is broken: the later ops of both kernels failed at once.
  EXPECT_EQ(aic.fault_count, 2u);
  EXPECT_EQ(aiv.fault_count, 2u);
}

TEST(Pipe, PopWithoutPushIsADeadlockOnceTheProducerFinished) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster(/*timeout_s=*/30.0);
  std::function<void()> kernels[3] = {
      [&] {
        AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        TPUSH_TO_AIV(t, PipeSplit::NONE);
      },
      [&] {
        AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        for (int i = 0; i < 2; ++i) {
          TPOP_FROM_AIC(t, PipeSplit::NONE);
          TFREE_TO_AIC();
        }
      },
      {}};
  auto start = Clock::now();
  cluster.Run(kAic | kAiv0, kernels);
  EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));
  EXPECT_FALSE(cluster.core(0).faulted()) << Detail(cluster.core(0));
  const SimCore& aiv = cluster.core(1);
  ASSERT_TRUE(aiv.faulted());
  EXPECT_STREQ(aiv.fault.instruction, "TPOP_FROM_AIC");
  EXPECT_EQ(Detail(aiv),
            "cross-core pipe deadlock in cluster task 'mixed_aic+mixed_aiv': every core of the cluster is waiting on "
            "the pipe or has finished, so no wait can end. the AIC: finished. AIV lane 0: waits in TPOP_FROM_AIC "
            "for a tile of ring C2V lane 0 (pushed 1, popped 1, freed 1, 0 of 2 slots in use): the producer (the "
            "AIC) finished after pushing 1 tiles, and this is pop 2: the push and pop counts differ.");
}

TEST(Pipe, AWaitOnABusyPeerTimesOut) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster(/*timeout_s=*/0.2);
  Clock::duration waited{};
  std::function<void()> kernels[3] = {
      [&] {
        AIC_INITIALIZE_PIPE(DIR_V2C, T::kBytes, 2);
        T t;
        TASSIGN(t, 0);
        auto start = Clock::now();
        TPOP_FROM_AIV(t, PipeSplit::NONE);
        waited = Clock::now() - start;
      },
      [&] {
        AIV_INITIALIZE_PIPE(DIR_V2C, T::kBytes, 2);
        // Busy outside the pipe for longer than the timeout.
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        T t;
        TASSIGN(t, 0);
        TPUSH_TO_AIC(t, PipeSplit::NONE);
      },
      {}};
  cluster.Run(kAic | kAiv0, kernels);
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  EXPECT_LT(waited, std::chrono::milliseconds(1500));
  const SimCore& aic = cluster.core(0);
  ASSERT_TRUE(aic.faulted());
  EXPECT_EQ(Detail(aic),
            "cross-core pipe wait of the AIC timed out after 0.20 s in cluster task 'mixed_aic+mixed_aiv' "
            "(PYPTO_PIPE_TIMEOUT_S; raise it if a peer is merely slow). the AIC: waits in TPOP_FROM_AIV for a tile "
            "of ring V2C lane 0 (pushed 0, popped 0, freed 0, 0 of 2 slots in use): the producer (AIV lane 0) waits "
            "elsewhere before pushing; see its wait. AIV lane 0: running (busy outside the pipe).");
  // The late push finds the pipe broken and fails at once.
  const SimCore& aiv = cluster.core(1);
  ASSERT_TRUE(aiv.faulted());
  EXPECT_STREQ(aiv.fault.instruction, "TPUSH_TO_AIC");
  EXPECT_NE(Detail(aiv).find("is broken: an earlier wait of this block failed"), std::string::npos) << Detail(aiv);
}

// ---- Misuse is a fault naming what to do.

TEST(Pipe, FreeWithoutPopIsAFault) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster;
  std::function<void()> kernels[3] = {[&] { AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2); },
                                      [&] {
                                        AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2);
                                        PYPTO_LOC(9);
                                        TFREE_TO_AIC();
                                      },
                                      {}};
  cluster.Run(kAic | kAiv0, kernels);
  EXPECT_FALSE(cluster.core(0).faulted()) << Detail(cluster.core(0));
  const SimCore& aiv = cluster.core(1);
  ASSERT_TRUE(aiv.faulted());
  EXPECT_STREQ(aiv.fault.instruction, "TFREE_TO_AIC");
  EXPECT_EQ(aiv.fault.line, 9u);
  EXPECT_EQ(Detail(aiv),
            "TFREE_TO_AIC on AIV lane 0 in cluster task 'mixed_aic+mixed_aiv' frees a slot of ring C2V lane 0 it "
            "never popped (popped 0, freed 0); free once per TPOP_FROM_AIC");
}

TEST(Pipe, EndsThatDisagreeOnTheRingAreAFault) {
  using T = Tile<TileType::Vec, float, 4, 8>;
  Cluster cluster;
  std::function<void()> kernels[3] = {[&] { AIC_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 2); },
                                      [&] { AIV_INITIALIZE_PIPE(DIR_C2V, T::kBytes, 4); }, {}};
  cluster.Run(kAic | kAiv0, kernels);
  // Whichever init comes second names the disagreement.
  std::string both = Detail(cluster.core(0)) + "|" + Detail(cluster.core(1));
  EXPECT_NE(both.find("the ends of C2V disagree"), std::string::npos) << both;
  EXPECT_EQ(cluster.core(0).fault_count + cluster.core(1).fault_count, 1u) << both;
}

TEST(Pipe, OpsOutsideAClusterTaskAndTooLargeTilesAreFaults) {
  using Big = Tile<TileType::Vec, float, 8, 8>;
  SimCore alone;
  std::vector<unsigned char> buffer(4096);
  alone.buffer[static_cast<int>(TileType::Vec)] = buffer.data();
  alone.capacity[static_cast<int>(TileType::Vec)] = buffer.size();
  SetCurrentCore(&alone);
  Big t;
  TASSIGN(t, 0);
  TPUSH_TO_AIC(t, PipeSplit::NONE);
  SetCurrentCore(nullptr);
  ASSERT_TRUE(alone.faulted());
  EXPECT_NE(std::string(alone.fault.detail).find("does not run as part of a cluster task"), std::string::npos);

  Cluster cluster;
  std::function<void()> kernels[3] = {[&] { AIC_INITIALIZE_PIPE(DIR_V2C, Big::kBytes / 2, 2); },
                                      [&] {
                                        AIV_INITIALIZE_PIPE(DIR_V2C, Big::kBytes / 2, 2);
                                        Big b;
                                        TASSIGN(b, 0);
                                        TPUSH_TO_AIC(b, PipeSplit::NONE);
                                      },
                                      {}};
  cluster.Run(kAic | kAiv0, kernels);
  EXPECT_NE(Detail(cluster.core(1)).find("a tile of 256 bytes does not fit a slot of 128 bytes of V2C"),
            std::string::npos)
      << Detail(cluster.core(1));

  // After the block, a kernel running alone on a cluster core has no pipe either.
  SimCore& lane = cluster.core(1);
  lane.Clear();
  SetCurrentCore(&lane);
  Tile<TileType::Vec, float, 4, 8> popped;
  TASSIGN(popped, 0);
  TPOP_FROM_AIC(popped, PipeSplit::NONE);
  SetCurrentCore(nullptr);
  ASSERT_TRUE(lane.faulted());
  EXPECT_NE(std::string(lane.fault.detail).find("does not run as part of a cluster task"), std::string::npos)
      << lane.fault.detail;
}

// ---- Determinism: the same data out of every interleaving.

std::vector<float> RoundTrip() {
  // AIC -> both lanes (UP_DOWN), each lane adds its lane number + 1, lanes -> AIC (UP_DOWN).
  using Full = Tile<TileType::Vec, float, 8, 8>;
  using Half = Tile<TileType::Vec, float, 4, 8>;
  constexpr int kTiles = 10;
  Cluster cluster;
  std::vector<float> out;
  auto lane_kernel = [&](int lane) {
    return [&, lane] {
      AIV_INITIALIZE_PIPE(DIR_C2V | DIR_V2C, Full::kBytes, 2);
      Half in;
      Half back;
      TASSIGN(in, 0);
      TASSIGN(back, 256);
      for (int i = 0; i < kTiles; ++i) {
        TPOP_FROM_AIC(in, PipeSplit::UP_DOWN);
        TADDS(back, in, static_cast<float>(lane + 1));
        TFREE_TO_AIC();
        TPUSH_TO_AIC(back, PipeSplit::UP_DOWN);
      }
    };
  };
  std::function<void()> kernels[3] = {[&] {
                                        AIC_INITIALIZE_PIPE(DIR_C2V | DIR_V2C, Full::kBytes, 2);
                                        Full t;
                                        Full r;
                                        TASSIGN(t, 0);
                                        TASSIGN(r, 512);
                                        // Two tiles ahead: the lanes' pushes and the AIC's interleave.
                                        for (int i = 0; i < kTiles + 2; ++i) {
                                          if (i < kTiles) {
                                            Fill(t, 10.0f * i);
                                            TPUSH_TO_AIV(t, PipeSplit::UP_DOWN);
                                          }
                                          if (i >= 2) {
                                            TPOP_FROM_AIV(r, PipeSplit::UP_DOWN);
                                            for (float v : Values(r)) out.push_back(v);
                                            TFREE_TO_AIV();
                                          }
                                        }
                                      },
                                      lane_kernel(0), lane_kernel(1)};
  cluster.Run(kAic | kAiv0 | kAiv1, kernels);
  for (int m = 0; m < 3; ++m) EXPECT_FALSE(cluster.core(m).faulted()) << m << ": " << Detail(cluster.core(m));
  return out;
}

TEST(Pipe, FiftyRunsGiveTheSameData) {
  const std::vector<float> first = RoundTrip();
  ASSERT_EQ(first.size(), 10u * 64u);
  // Tile i, row r, column c came back as 10 i + 8 r + c, plus 1 in the top half and 2 in the bottom.
  for (int i = 0; i < 10; ++i) {
    for (int r = 0; r < 8; ++r) {
      for (int c = 0; c < 8; ++c) {
        ASSERT_EQ(first[(i * 8 + r) * 8 + c], Filled(10.0f * i, r, c, 8) + (r < 4 ? 1.0f : 2.0f)) << i << " " << r;
      }
    }
  }
  for (int run = 1; run < 50; ++run) ASSERT_EQ(RoundTrip(), first) << "run " << run;
}

}  // namespace
}  // namespace pypto::pipe_test
