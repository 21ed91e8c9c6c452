// Cross-core pipes in a traced run: the performance model charges the pipe's
// instructions, carries device time through the rings (a pop starts no
// earlier than its push was done, a push into a full ring no earlier than
// the free of its slot) and records each core's waits in both clocks, the
// same device numbers however the host's threads ran.
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <pto/pto-inst.hpp>

#include "pypto/backend/platform.h"
#include "pypto/backend/simulator.h"
#include "pypto/runtime/kernel_args.h"
#include "pypto/runtime/runtime.h"

#include "cluster_kernel_util.h"

namespace pypto::pipe_trace_test {
namespace {

using namespace pto;
// Pushed from the AIC's Mat (MTE1).
using Pushed = Tile<TileType::Mat, float, 8, 8, BLayout::ColMajor, 8, 8, SLayout::RowMajor, 512>;
using Popped = Tile<TileType::Vec, float, 8, 8>;
constexpr int kTiles = 5;
constexpr int kSlots = 2;

// What a run's kernels see of their models, and how the host delays them.
struct Scenario {
  uint64_t producer_work = 0;  // modelled cycles of work on each tile before its push
  uint64_t consumer_work = 0;  // modelled cycles of work on each popped tile before its free
  int producer_sleep_ms = 0;   // host delays: the device numbers must not change
  int consumer_sleep_ms = 0;
};
Scenario scenario;
std::mutex seen_mu;
std::vector<uint64_t> push_ready;  // the AIC's model after each push: when its tile is ready
std::vector<uint64_t> free_done;   // the AIV's model after each free

// Modelled work of `cycles` on `pipe` that writes (reads) `tile`, as a load (a vector op) would.
template <typename TileT>
void Work(SimCore* core, Pipe pipe, uint64_t cycles, const TileT& tile, bool writes) {
  if (core->perf == nullptr || cycles == 0) return;
  const Operand o = detail::TileOperand(tile, TileT::kRows * TileT::kCols);
  core->perf->Issue(pipe, cycles, writes ? nullptr : &o, writes ? 0 : 1, writes ? &o : nullptr, writes ? 1 : 0);
}

void Produce(__gm__ int64_t*) {
  SimCore* core = pypto_sim_current_core();
  PYPTO_LOC(3);
  AIC_INITIALIZE_PIPE(DIR_C2V, Pushed::kBytes, kSlots);
  Pushed t;
  TASSIGN(t, 0);
  for (int i = 0; i < kTiles; ++i) {
    if (scenario.producer_sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(scenario.producer_sleep_ms));
    Work(core, Pipe::MTE2, scenario.producer_work, t, true);
    PYPTO_LOC(5);
    TPUSH_TO_AIV(t, PipeSplit::NONE);
    if (core->perf != nullptr) {
      std::lock_guard lock(seen_mu);
      push_ready.push_back(core->perf->done);
    }
  }
}

void Consume(__gm__ int64_t*) {
  SimCore* core = pypto_sim_current_core();
  PYPTO_LOC(8);
  AIV_INITIALIZE_PIPE(DIR_C2V, Pushed::kBytes, kSlots);
  Popped t;
  TASSIGN(t, 0);
  for (int i = 0; i < kTiles; ++i) {
    if (scenario.consumer_sleep_ms) std::this_thread::sleep_for(std::chrono::milliseconds(scenario.consumer_sleep_ms));
    PYPTO_LOC(10);
    TPOP_FROM_AIC(t, PipeSplit::NONE);
    Work(core, Pipe::V, scenario.consumer_work, t, false);
    PYPTO_LOC(12);
    TFREE_TO_AIC();
    if (core->perf != nullptr) {
      std::lock_guard lock(seen_mu);
      free_done.push_back(core->perf->done);
    }
  }
}

class PipeTrace : public ::testing::Test {
 protected:
  void SetUp() override {
    push_ready.clear();
    free_done.clear();
    runtime_.SetTracing(true);
  }

  // One block of the AIC producer and one AIV consumer; its AIC and AIV spans.
  std::pair<runtime::CoreSpan, runtime::CoreSpan> RunOnce(const Scenario& s) {
    runtime_.SetTracing(true);
    scenario = s;
    push_ready.clear();
    free_done.clear();
    runtime::KernelSet set = runtime::KernelSet::Aic({"produce", pipe_testing::ClusterKernel<Produce>});
    set.aiv[0] = {"consume", pipe_testing::ClusterKernel<Consume>};
    runtime_.Submit(set, runtime::TaskArgs(), 1);
    runtime_.WaitAll();
    runtime::RunTrace trace = runtime_.LastRunTrace();
    EXPECT_EQ(trace.tasks.size(), 1u);
    const auto& spans = trace.tasks.back().spans;
    EXPECT_EQ(spans.size(), 2u);
    EXPECT_EQ(spans[0].core_type, runtime::CoreType::AIC);
    EXPECT_EQ(spans[1].core_type, runtime::CoreType::AIV);
    return {spans[0], spans[1]};
  }

  backend::SimulatedCores cores_{backend::Platform::Get("a2a3"), 1};
  runtime::Runtime runtime_{cores_.Options()};
};

// The device numbers of a core's kernel that must not depend on the host.
std::vector<int64_t> DeviceNumbers(const runtime::CoreSpan& span) {
  const runtime::CoreCounters& c = span.counters;
  std::vector<int64_t> out = {c.cycles, c.pipe.tiles_pushed, c.pipe.tiles_popped, c.pipe.bytes_pushed,
                              c.pipe.bytes_popped, c.pipe.frees, c.pipe.wait_cycles};
  for (size_t p = 0; p < c.pipe_busy_cycles.size(); ++p) {
    out.push_back(c.pipe_busy_cycles[p]);
    out.push_back(c.pipe_instructions[p]);
  }
  for (const runtime::PipeWait& w : c.pipe_waits) {
    if (w.device_end_cycles > w.device_start_cycles) {
      out.push_back(w.dir);
      out.push_back(w.device_start_cycles);
      out.push_back(w.device_end_cycles);
    }
  }
  return out;
}

std::vector<runtime::PipeWait> DeviceWaits(const runtime::CoreSpan& span, const std::string& instruction) {
  std::vector<runtime::PipeWait> out;
  for (const runtime::PipeWait& w : span.counters.pipe_waits) {
    if (w.instruction == instruction && w.device_end_cycles > w.device_start_cycles) out.push_back(w);
  }
  return out;
}

TEST_F(PipeTrace, APopStartsInDeviceTimeOnceItsPushIsDone) {
  auto [aic, aiv] = RunOnce({/*producer_work=*/1000, /*consumer_work=*/0});
  ASSERT_EQ(push_ready.size(), static_cast<size_t>(kTiles));
  // The pipe's instructions are charged: a push of a Mat tile on MTE1, a pop on MTE2, init and frees on MTE2.
  EXPECT_EQ(aic.counters.pipe.tiles_pushed, kTiles);
  EXPECT_EQ(aic.counters.pipe.bytes_pushed, kTiles * static_cast<int64_t>(Pushed::kBytes));
  EXPECT_EQ(aic.counters.pipe_instructions[1], kTiles);  // MTE1
  EXPECT_EQ(aiv.counters.pipe.tiles_popped, kTiles);
  EXPECT_EQ(aiv.counters.pipe.bytes_popped, kTiles * static_cast<int64_t>(Pushed::kBytes));
  EXPECT_EQ(aiv.counters.pipe.frees, kTiles);
  EXPECT_EQ(aiv.counters.pipe_instructions[0], 1 + 2 * kTiles);  // MTE2: the init, the pops and the frees
  EXPECT_EQ(aiv.counters.bytes_written[0], kTiles * static_cast<int64_t>(Pushed::kBytes));  // into Vec
  EXPECT_EQ(aiv.counters.bytes_read[6], kTiles * static_cast<int64_t>(Pushed::kBytes));     // out of the ring (GM)
  // The producer is slow: every pop waits for its push, and starts exactly when the push is done.
  std::vector<runtime::PipeWait> pops = DeviceWaits(aiv, "TPOP_FROM_AIC");
  ASSERT_EQ(pops.size(), static_cast<size_t>(kTiles));
  for (int i = 0; i < kTiles; ++i) {
    EXPECT_EQ(pops[i].device_end_cycles, static_cast<int64_t>(push_ready[i])) << "pop " << i;
    EXPECT_EQ(pops[i].dir, 0);
    EXPECT_EQ(pops[i].lane, 0);
    EXPECT_FALSE(pops[i].producer);
  }
  // The consumer's kernel ends after the last tile arrived; its waits are part of its cycles.
  EXPECT_GT(aiv.counters.cycles, static_cast<int64_t>(push_ready.back()));
  EXPECT_GT(aiv.counters.pipe.wait_cycles, 0);
  EXPECT_EQ(aic.counters.pipe.wait_cycles, 0);
  // Host waits lie inside the kernel's span.
  for (const runtime::PipeWait& w : aiv.counters.pipe_waits) {
    EXPECT_LE(aiv.start_ns, w.start_ns);
    EXPECT_LE(w.start_ns, w.end_ns);
    EXPECT_LE(w.end_ns, aiv.end_ns);
  }
}

TEST_F(PipeTrace, APushIntoAFullRingStartsInDeviceTimeOnceItsSlotIsFreed) {
  auto [aic, aiv] = RunOnce({/*producer_work=*/0, /*consumer_work=*/1000});
  ASSERT_EQ(free_done.size(), static_cast<size_t>(kTiles));
  // The consumer's init frees the slots: the first push, issued at once, waits for it.
  std::vector<runtime::PipeWait> pushes = DeviceWaits(aic, "TPUSH_TO_AIV");
  ASSERT_EQ(pushes.size(), static_cast<size_t>(1 + kTiles - kSlots));
  EXPECT_EQ(pushes[0].device_start_cycles, 0);
  EXPECT_EQ(pushes[0].device_end_cycles, static_cast<int64_t>(PerfModel::kPipeSyncCycles));
  // The consumer is slow: pushes after the ring's kSlots wait for the free of tile i - kSlots.
  for (int i = kSlots; i < kTiles; ++i) {
    const runtime::PipeWait& push = pushes[1 + i - kSlots];
    EXPECT_EQ(push.device_end_cycles, static_cast<int64_t>(free_done[i - kSlots])) << "push " << i;
    EXPECT_TRUE(push.producer);
    EXPECT_EQ(push.dir, 0);
  }
  EXPECT_GT(aic.counters.pipe.wait_cycles, 0);
}

TEST_F(PipeTrace, DeviceTimeDoesNotDependOnHowTheHostRanTheCores) {
  for (Scenario work : {Scenario{1000, 0}, Scenario{0, 1000}, Scenario{300, 300}}) {
    auto [aic, aiv] = RunOnce(work);
    const std::vector<int64_t> want_aic = DeviceNumbers(aic);
    const std::vector<int64_t> want_aiv = DeviceNumbers(aiv);
    // The producer far ahead of the consumer on the host, then far behind it.
    for (auto [producer_ms, consumer_ms] : {std::pair{0, 3}, std::pair{3, 0}, std::pair{0, 0}}) {
      Scenario s = work;
      s.producer_sleep_ms = producer_ms;
      s.consumer_sleep_ms = consumer_ms;
      auto [aic2, aiv2] = RunOnce(s);
      EXPECT_EQ(DeviceNumbers(aic2), want_aic) << work.producer_work << "/" << work.consumer_work;
      EXPECT_EQ(DeviceNumbers(aiv2), want_aiv) << work.producer_work << "/" << work.consumer_work;
    }
  }
}

TEST_F(PipeTrace, AnUntracedRunCountsNothing) {
  runtime_.SetTracing(false);
  scenario = {1000, 0};
  runtime::KernelSet set = runtime::KernelSet::Aic({"produce", pipe_testing::ClusterKernel<Produce>});
  set.aiv[0] = {"consume", pipe_testing::ClusterKernel<Consume>};
  runtime_.Submit(set, runtime::TaskArgs(), 1);
  runtime_.WaitAll();
  EXPECT_TRUE(push_ready.empty());
  // A traced run afterwards starts from clean counters.
  auto [aic, aiv] = RunOnce({1000, 0});
  EXPECT_EQ(aiv.counters.pipe.tiles_popped, kTiles);
  EXPECT_EQ(aic.counters.pipe.tiles_pushed, kTiles);
}

}  // namespace
}  // namespace pypto::pipe_trace_test
