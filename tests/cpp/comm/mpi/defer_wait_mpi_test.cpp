// pld.system.defer_wait on the mpi engine: kernels run by a task runtime register "my cell >= expected"
// through pypto_comm_defer_wait and return; the runtime completes their tasks once the peers' notifies
// land, and a condition that never holds fails the run with a timed-out wait's report. Collective, like
// every test of this binary.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
#include "pypto/runtime/c_api_comm.h"
#include "comm/mpi/mpi_test_util.h"
#include "pypto/runtime/runtime.h"

using pypto::Error;
using pypto::ir::DataType;
using pypto::testing::Contains;
namespace comm = pypto::comm;
using pypto::testing::mpi::E;
using pypto::testing::mpi::Me;
using pypto::testing::mpi::N;
namespace rt = pypto::runtime;

namespace {

// What the kernels below reach: they are plain functions, as generated kernels are.
int32_t* inbox = nullptr;  // window: one INT32 value from the left neighbour
int32_t* sig = nullptr;    // window: [N, 1] INT32 signal
PyptoRtTensorDesc sig_desc{};
std::atomic<int32_t> seen{-1};

PyptoRtTensorDesc SignalDesc(int32_t* cells) {
  PyptoRtTensorDesc d{};
  d.data = cells;
  d.ndim = 2;
  d.shape[0] = N();
  d.shape[1] = 1;
  d.strides[0] = 1;
  d.strides[1] = 1;
  d.dtype = static_cast<int32_t>(DataType::INT32.code());
  return d;
}

void Report(PyptoRtCoreContext* ctx, const char* error, int line) {
  if (error != nullptr) pypto_rt_kernel_fail(ctx, "TDEFER_WAIT", "prog.py", line, error);
}

// Waits (deferred) for row 0 of my signal: the left neighbour sets it after its put.
void WaitLeft(const int64_t*, PyptoRtCoreContext* ctx) {
  Report(ctx, pypto_comm_defer_wait(&sig_desc, sig, 1, "prog.py", 5), 5);
}

void UseLeft(const int64_t*, PyptoRtCoreContext*) { seen = *inbox; }

void SendRight(const int64_t*, PyptoRtCoreContext* ctx) {
  int right = (Me() + 1) % N();
  int32_t value = 100 + Me();
  const char* error = pypto_comm_put(right, inbox, 4, &value, 4, 1, 4, static_cast<int32_t>(DataType::INT32.code()),
                                     PYPTO_COMM_ATOMIC_NONE);
  if (error == nullptr) error = pypto_comm_notify(right, sig, 1, PYPTO_COMM_NOTIFY_SET);
  if (error != nullptr) pypto_rt_kernel_fail(ctx, "TNOTIFY", "prog.py", 8, error);
}

// Waits (deferred) for row 1 of my signal, which no rank sets.
void WaitNever(const int64_t*, PyptoRtCoreContext* ctx) {
  Report(ctx, pypto_comm_defer_wait(&sig_desc, sig + 1, 1, "prog.py", 9), 9);
}

struct Windows {
  Windows() : data(E().AllocWindow(64)), signal(E().AllocWindow(4 * N())) {
    inbox = static_cast<int32_t*>(data.base);
    sig = static_cast<int32_t*>(signal.base);
    sig_desc = SignalDesc(sig);
    seen = -1;
  }
  ~Windows() {
    E().FreeWindow(signal.id);
    E().FreeWindow(data.id);
  }
  comm::Window data, signal;
};

TEST(CommMpiDeferWait, TheContinuationReadsWhatTheLeftNeighbourPut) {
  Windows w;
  E().Barrier();
  // One cluster: the deferred task must free it, or the send never runs and every rank hangs.
  rt::Runtime runtime{rt::RuntimeOptions{1}};
  rt::TaskId wait = runtime.Submit(rt::KernelSet::Aiv({"wait_left", WaitLeft}), rt::TaskArgs(), 1, {});
  runtime.Submit(rt::KernelSet::Aiv({"use_left", UseLeft}), rt::TaskArgs(), 1, {wait});
  runtime.Submit(rt::KernelSet::Aiv({"send_right", SendRight}), rt::TaskArgs(), 1, {});
  runtime.WaitAll();
  EXPECT_EQ(seen.load(), 100 + (Me() + N() - 1) % N());
  E().Barrier();
}

TEST(CommMpiDeferWait, AConditionThatNeverHoldsFailsTheRunWithTheWaitReport) {
  Windows w;
  E().Barrier();
  // Rank 0 times out first and raises the alarm, which stops the other ranks' deferred waits.
  E().SetWaitTimeout(Me() == 0 ? 0.3 : 20);
  rt::Runtime runtime{rt::RuntimeOptions{1}};
  rt::TaskId wait = runtime.Submit(rt::KernelSet::Aiv({"wait_peer", WaitNever}), rt::TaskArgs(), 1, {});
  runtime.Submit(rt::KernelSet::Aiv({"use_peer", UseLeft}), rt::TaskArgs(), 1, {wait});
  std::string message;
  try {
    runtime.WaitAll();
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_EQ(seen.load(), -1) << "the continuation ran though its wait never held";
  EXPECT_TRUE(Contains(message, "kernel 'wait_peer' (task 0) faulted in TDEFER_WAIT at prog.py:9: its deferred "
                                "wait (pld.system.defer_wait) never held: "))
      << message;
  if (Me() == 0) {
    EXPECT_TRUE(Contains(message, "comm wait timed out on rank 0 after 0.")) << message;
    EXPECT_TRUE(Contains(message, "byte offset 4) holds 0, waiting for it to be >= 1")) << message;
    EXPECT_TRUE(Contains(message, "signal [" + std::to_string(N()) + ", 1] on rank 0: [0,0]=0 [1,0]=0")) << message;
    EXPECT_TRUE(Contains(message, "the wait is on [1,0]")) << message;
  } else {
    EXPECT_TRUE(Contains(message, "because rank 0 timed out first")) << message;
  }
  E().SetWaitTimeout(20);
  E().ClearAlarm();
}

TEST(CommMpiDeferWait, ANegativeExpectedValueIsRefused) {
  Windows w;
  rt::Runtime runtime{rt::RuntimeOptions{1}};
  auto negative = [](const int64_t*, PyptoRtCoreContext* ctx) {
    Report(ctx, pypto_comm_defer_wait(&sig_desc, sig, -2, "prog.py", 11), 11);
  };
  runtime.Submit(rt::KernelSet::Aiv({"wait_negative", negative}), rt::TaskArgs(), 1, {});
  std::string message;
  try {
    runtime.WaitAll();
  } catch (const Error& e) {
    message = e.what();
  }
  EXPECT_TRUE(Contains(message, "faulted in TDEFER_WAIT at prog.py:11: comm defer_wait on rank " +
                                    std::to_string(Me()) + ": expected is -2, but deferred conditions compare values "
                                    "in [0, INT32_MAX]"))
      << message;
  E().Barrier();
}

}  // namespace
