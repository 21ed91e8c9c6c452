// A block the submitting thread deferred (to run it itself at WaitAll) must
// still run when every cluster is busy at WaitAll: a running kernel may be
// waiting for it, as a kernel waiting on a peer's signal waits for the kernel
// that sends it.
//
// The schedule is forced, not slept into: one task of two blocks takes both
// clusters, and the release is submitted only once both blocks are seen
// running, so it is a lone deferred block. Block 0 waits for the release;
// block 1 holds its cluster until the submitting thread has gone into WaitAll
// (and a little longer), then frees it, and a worker, not the submitting
// thread, must run the release. If block 1 let go before WaitAll looked at the
// clusters (a very slow machine), WaitAll runs the release itself and that
// attempt proves nothing; the test tries again and fails unless the worker
// path ran at least once.
#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> started{0};
std::atomic<bool> released{false};
std::atomic<bool> gave_up{false};
std::atomic<bool> in_wait_all{false};
std::atomic<std::thread::id> release_thread{};

// Spins until `done` holds or `limit` passes; false on the timeout, so a regression fails instead of hanging.
template <typename Done>
bool SpinUntil(Done done, std::chrono::milliseconds limit) {
  const auto until = Clock::now() + limit;
  while (!done()) {
    if (Clock::now() > until) return false;
    std::this_thread::yield();
  }
  return true;
}

void WaitOrHold(const int64_t*, PyptoRtCoreContext* ctx) {
  ++started;
  if (ctx->block_idx == 0) {
    if (!SpinUntil([] { return released.load(); }, std::chrono::seconds(10))) gave_up = true;
    return;
  }
  SpinUntil([] { return in_wait_all.load(); }, std::chrono::seconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // WaitAll gets to see both clusters busy
}

void Release(const int64_t*, PyptoRtCoreContext*) {
  release_thread = std::this_thread::get_id();
  released = true;
}

TEST(RuntimeDeferredBlock, RunsOnAWorkerWhenWaitAllFindsEveryClusterBusy) {
  bool worker_ran_it = false;
  for (int attempt = 0; attempt < 20 && !worker_ran_it; ++attempt) {
    started = 0;
    released = gave_up = in_wait_all = false;
    release_thread = std::thread::id();
    Runtime rt{RuntimeOptions{2}};
    rt.Submit(KernelSet::Aiv({"wait_or_hold", WaitOrHold}), TaskArgs(), 2, {});
    ASSERT_TRUE(SpinUntil([] { return started.load() == 2; }, std::chrono::seconds(10)))
        << "the two blocks of the first task never ran at once on the two clusters";
    rt.Submit(KernelSet::Aiv({"release", Release}), TaskArgs(), 1, {});
    in_wait_all = true;
    rt.WaitAll();
    ASSERT_TRUE(released.load());
    ASSERT_FALSE(gave_up.load()) << "the deferred block ran only after the waiting kernel gave up";
    worker_ran_it = release_thread.load() != std::this_thread::get_id();
  }
  EXPECT_TRUE(worker_ran_it) << "in 20 attempts WaitAll never found both clusters busy: the deferred block always "
                                "ran on the submitting thread, so the worker path went untested";
}

}  // namespace
}  // namespace pypto::runtime
