// Deferred completion (pld.system.defer_wait): a kernel registers conditions and returns; its task
// completes, and releases its dependents, only once every condition holds. The core is free
// meanwhile, so one cluster can run the task that makes the condition true.
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using testing::ErrorOf;

std::atomic<int> cell_a{0};
std::atomic<int> cell_b{0};
std::atomic<int> data{0};
std::atomic<int> seen{-1};        // what the continuation read
std::atomic<bool> continued{false};

void Reset() {
  cell_a = 0;
  cell_b = 0;
  data = 0;
  seen = -1;
  continued = false;
}

DeferredCondition AtLeastOne(std::atomic<int>& cell) {
  return {[&cell] { return cell.load() >= 1; }, "TDEFER_WAIT", "prog.py", 7};
}

void DeferOnA(const int64_t*, PyptoRtCoreContext*) { DeferCurrentTask(AtLeastOne(cell_a)); }

void DeferOnAAndB(const int64_t*, PyptoRtCoreContext*) {
  DeferCurrentTask(AtLeastOne(cell_a));
  DeferCurrentTask(AtLeastOne(cell_b));
}

void Publish(const int64_t*, PyptoRtCoreContext*) {
  data = 42;
  cell_a = 1;
}

void Continue(const int64_t*, PyptoRtCoreContext*) {
  seen = data.load();
  continued = true;
}

TEST(RuntimeDefer, TheCoreIsFreeWhileTheTaskWaitsForItsCondition) {
  Reset();
  // One cluster: were the deferring kernel to hold its core, the publisher could never run.
  Runtime rt{RuntimeOptions{1}};
  TaskId wait = rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"use_peer", Continue}), TaskArgs(), 1, {wait});
  rt.Submit(KernelSet::Aiv({"publish", Publish}), TaskArgs(), 1, {});
  rt.WaitAll();
  EXPECT_TRUE(continued.load());
  EXPECT_EQ(seen.load(), 42) << "the continuation ran before the condition held";
}

TEST(RuntimeDefer, DependentsStartOnlyOnceEveryConditionHolds) {
  Reset();
  Runtime rt{RuntimeOptions{2}};
  TaskId wait = rt.Submit(KernelSet::Aiv({"wait_two", DeferOnAAndB}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"use_peer", Continue}), TaskArgs(), 1, {wait});
  std::thread peer([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    cell_a = 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(continued.load()) << "released with one of two conditions holding";
    data = 7;
    cell_b = 1;
  });
  rt.WaitAll();
  peer.join();
  EXPECT_TRUE(continued.load());
  EXPECT_EQ(seen.load(), 7);
}

TEST(RuntimeDefer, ARunWithoutDeferralsNeedsNoPoller) {
  Reset();
  Runtime rt{RuntimeOptions{1}};
  rt.Submit(KernelSet::Aiv({"publish", Publish}), TaskArgs(), 1, {});
  rt.WaitAll();
  // The next run defers: the poller starts then, and the runtime is reusable across runs.
  TaskId wait = rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"use_peer", Continue}), TaskArgs(), 1, {wait});
  rt.WaitAll();
  EXPECT_EQ(seen.load(), 42);
}

TEST(RuntimeDefer, AConditionThatNeverHoldsFailsTheRunAndCancelsItsDependents) {
  Reset();
  Runtime rt{RuntimeOptions{2}};
  // Polled false at the registration, then past its deadline at the poller.
  auto deadline = [](const int64_t*, PyptoRtCoreContext*) {
    auto polls = std::make_shared<int>(0);
    DeferCurrentTask({[polls]() -> bool {
                        if ((*polls)++ == 0) return false;
                        throw Error(ErrorKind::kRuntime, "comm wait timed out on rank 1 after 0.20 s");
                      },
                      "TDEFER_WAIT", "prog.py", 12});
  };
  TaskId wait = rt.Submit(KernelSet::Aiv({"wait_peer", deadline}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"use_peer", Continue}), TaskArgs(), 1, {wait});
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("kernel 'wait_peer' (task 0) faulted in TDEFER_WAIT at prog.py:12: comm wait timed out on "
                         "rank 1 after 0.20 s; tasks not yet started were cancelled"),
            std::string::npos)
      << message;
  EXPECT_FALSE(continued.load());
}

TEST(RuntimeDefer, AFaultElsewhereCancelsTheDeferredTasks) {
  Reset();
  Runtime rt{RuntimeOptions{2}};
  auto fail = [](const int64_t*, PyptoRtCoreContext* ctx) {
    pypto_rt_kernel_fail(ctx, "TADD", "prog.py", 3, "boom");
  };
  TaskId wait = rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
  rt.Submit(KernelSet::Aiv({"use_peer", Continue}), TaskArgs(), 1, {wait});
  rt.Submit(KernelSet::Aiv({"fails", fail}), TaskArgs(), 1, {});
  // cell_a never becomes 1: without the cancel, WaitAll would wait for ever.
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("kernel 'fails' (task 2) faulted in TADD at prog.py:3: boom"), std::string::npos) << message;
  EXPECT_FALSE(continued.load());
}

void DeferSixtyFive(const int64_t*, PyptoRtCoreContext*) {
  for (size_t i = 0; i <= kMaxDeferredConditions; ++i) DeferCurrentTask(AtLeastOne(cell_a));
}

TEST(RuntimeDefer, ATaskDefersOnAtMost64Conditions) {
  Reset();
  Runtime rt{RuntimeOptions{1}};
  rt.Submit(KernelSet::Aiv({"wait_many", DeferSixtyFive}), TaskArgs(), 1, {});
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("pld.system.defer_wait: task 0 ('wait_many') already defers its completion on 64 "
                         "conditions, the most one task may; split the waits over several defer_wait tasks"),
            std::string::npos)
      << message;
}

TEST(RuntimeDefer, TheSchedulerHoldsAtMost64DeferredTasks) {
  Reset();
  Runtime rt{RuntimeOptions{1}};
  // One cluster runs them in order: tasks 0..63 defer, task 64 is one too many.
  for (size_t i = 0; i <= kMaxDeferredTasks; ++i) {
    rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
  }
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("pld.system.defer_wait: 64 tasks are deferred already, the most the scheduler holds at once "
                         "(64), so task 64 ('wait_peer') cannot defer too"),
            std::string::npos)
      << message;
}

TEST(RuntimeDefer, AConditionThatHoldsAlreadyIsNotDeferred) {
  Reset();
  cell_a = 1;
  Runtime rt{RuntimeOptions{2}};
  for (size_t i = 0; i < 3 * kMaxDeferredTasks; ++i) {
    rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
  }
  rt.WaitAll();
}

TEST(RuntimeDefer, CompletedDeferredTasksLeaveTheTable) {
  Reset();
  Runtime rt{RuntimeOptions{1}};
  // Three runs of a full table: a task that completed but still counted would fail the second.
  for (int run = 0; run < 3; ++run) {
    cell_a = 0;
    for (size_t i = 0; i < kMaxDeferredTasks; ++i) {
      rt.Submit(KernelSet::Aiv({"wait_peer", DeferOnA}), TaskArgs(), 1, {});
    }
    std::thread peer([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      cell_a = 1;
    });
    rt.WaitAll();
    peer.join();
  }
}

TEST(RuntimeDefer, OnlyAKernelCanDefer) {
  std::string message = ErrorOf([] { DeferCurrentTask(AtLeastOne(cell_a)); });
  EXPECT_NE(message.find("only a kernel the runtime runs may call it"), std::string::npos) << message;
}

}  // namespace
}  // namespace pypto::runtime
