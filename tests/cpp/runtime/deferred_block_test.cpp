// A block the submitting thread deferred (to run it itself at WaitAll) must
// still run when every cluster is busy at WaitAll: a running kernel may be
// waiting for it, as a kernel waiting on a peer's signal waits for the kernel
// that sends it.
#include <atomic>
#include <chrono>
#include <thread>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

std::atomic<bool> released{false};
std::atomic<bool> gave_up{false};

// Spins until the releasing kernel runs (or 10 s pass, so a regression fails instead of hanging).
void WaitForRelease(const int64_t*, PyptoRtCoreContext*) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!released.load()) {
    if (std::chrono::steady_clock::now() > until) {
      gave_up = true;
      return;
    }
    std::this_thread::yield();
  }
}

void Sleep(const int64_t*, PyptoRtCoreContext*) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

void Release(const int64_t*, PyptoRtCoreContext*) { released = true; }

TEST(RuntimeDeferredBlock, RunsWhenWaitAllFindsEveryClusterBusy) {
  released = false;
  gave_up = false;
  Runtime rt{RuntimeOptions{2}};
  rt.Submit(KernelSet::Aiv({"wait_for_release", WaitForRelease}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"sleep", Sleep}), TaskArgs(), 1, {});
  // Both clusters are taken before the last, deferred, submit.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  rt.Submit(KernelSet::Aiv({"release", Release}), TaskArgs(), 1, {});
  rt.WaitAll();
  EXPECT_TRUE(released.load());
  EXPECT_FALSE(gave_up.load()) << "the deferred block ran only after the waiting kernel gave up";
}

}  // namespace
}  // namespace pypto::runtime
