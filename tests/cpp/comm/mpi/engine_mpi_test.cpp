// The mpi engine across ranks. Run by ctest as `mpirun -np P test_comm_mpi`
// (P = 2, 3, 4): every rank runs every test, and every test is collective.
// The engine is started through the plugin host, as users start it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
#include "pypto/isa/types.h"
#include "pypto/runtime/c_api_comm.h"
#include "comm/mpi/mpi_test_util.h"

using pypto::Error;
using pypto::ir::DataType;
using pypto::testing::Contains;
namespace comm = pypto::comm;
using pypto::testing::mpi::E;
using pypto::testing::mpi::Me;
using pypto::testing::mpi::N;

namespace {

int32_t Code(DataType dtype) { return static_cast<int32_t>(dtype.code()); }

// Frees the window at the end of a test, also when an assertion returned early.
struct ScopedWindow {
  explicit ScopedWindow(int64_t bytes) : window(E().AllocWindow(bytes)) {}
  ~ScopedWindow() { E().FreeWindow(window.id); }
  template <class T>
  T* As() const { return static_cast<T*>(window.base); }
  comm::Window window;
};

template <class F>
comm::WaitTimeoutError TimeoutFrom(F&& f) {
  try {
    f();
  } catch (const comm::WaitTimeoutError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a WaitTimeoutError, but nothing was thrown";
  return comm::WaitTimeoutError(comm::WaitFailure{});
}

TEST(CommMpi, WindowsAreZeroedAlignedAndSymmetric) {
  ScopedWindow w(1000);
  const auto* bytes = w.As<unsigned char>();
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(bytes[i], 0) << "byte " << i;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(w.window.base) % 64, 0u);
  // Ids are each process's own handles (windows of comm domains other than the world leave gaps on
  // the ranks outside them); the size is what is symmetric.
  int64_t mine = w.window.bytes;
  std::vector<int64_t> all(N());
  E().AllGather(&mine, all.data(), sizeof(mine));
  for (int r = 0; r < N(); ++r) EXPECT_EQ(all[r], 1000) << "rank " << r;
  auto where = E().Locate(w.As<char>() + 999);
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->window, w.window.id);
  EXPECT_EQ(where->offset, 999);
  EXPECT_FALSE(E().Locate(w.As<char>() + 1000).has_value());
}

TEST(CommMpi, StridedPutAndGetBetweenEveryPair) {
  // Window: one block per sender of kRows rows, kStride int32 apart, kCols used.
  constexpr int kRows = 3, kCols = 5, kStride = 8, kSrcStride = 6;
  const int64_t block = kRows * kStride * 4;
  ScopedWindow w(block * N());
  auto value = [](int from, int to, int i, int j) { return from * 1000 + to * 100 + i * 10 + j; };
  for (int peer = 0; peer < N(); ++peer) {
    std::vector<int32_t> src(kRows * kSrcStride, -1);
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kCols; ++j) src[i * kSrcStride + j] = value(Me(), peer, i, j);
    }
    E().Put(w.window.id, peer, Me() * block, kStride * 4, src.data(), kSrcStride * 4, kRows, kCols * 4,
            DataType::INT32, comm::AtomicType::kNone);
  }
  E().Barrier();
  for (int from = 0; from < N(); ++from) {
    const int32_t* got = w.As<int32_t>() + from * kRows * kStride;
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kStride; ++j) {
        int32_t expected = j < kCols ? value(from, Me(), i, j) : 0;  // the gaps between rows stay untouched
        ASSERT_EQ(got[i * kStride + j], expected) << "from " << from << " row " << i << " col " << j;
      }
    }
  }
  // Pull back what this rank put into each peer's block, into a strided local buffer.
  for (int peer = 0; peer < N(); ++peer) {
    std::vector<int32_t> dst(kRows * kSrcStride, -1);
    E().Get(dst.data(), kSrcStride * 4, w.window.id, peer, Me() * block, kStride * 4, kRows, kCols * 4);
    for (int i = 0; i < kRows; ++i) {
      for (int j = 0; j < kSrcStride; ++j) {
        int32_t expected = j < kCols ? value(Me(), peer, i, j) : -1;
        ASSERT_EQ(dst[i * kSrcStride + j], expected) << "peer " << peer << " row " << i << " col " << j;
      }
    }
  }
  E().Barrier();
}

// Every rank adds `rounds` times into rank 0; element j of rank r's addend is
// `addend(r, j)`; rank 0 checks the exact sum. Starts at element 1 and uses
// an odd count, so half-precision adds hit both lanes of a 32-bit word alone.
template <class T, class Make, class Read>
void AtomicAddIntoRankZero(DataType dtype, Make make, Read read) {
  constexpr int kCount = 7, kFirst = 1, kRounds = 3;
  ScopedWindow w((kFirst + kCount + 1) * sizeof(T));
  std::vector<T> src(kCount);
  for (int j = 0; j < kCount; ++j) src[j] = make(Me() + 1 + j);
  for (int round = 0; round < kRounds; ++round) {
    E().Put(w.window.id, 0, kFirst * sizeof(T), 0, src.data(), 0, 1, kCount * sizeof(T), dtype,
            comm::AtomicType::kAdd);
  }
  E().Barrier();
  if (Me() == 0) {
    const T* got = w.As<T>();
    EXPECT_EQ(read(got[0]), 0) << "the element before the region";
    EXPECT_EQ(read(got[kFirst + kCount]), 0) << "the element after the region";
    for (int j = 0; j < kCount; ++j) {
      double expected = 0;
      for (int r = 0; r < N(); ++r) expected += kRounds * (r + 1 + j);
      EXPECT_EQ(read(got[kFirst + j]), expected) << dtype.name() << " element " << j;
    }
  }
  E().Barrier();
}

TEST(CommMpi, AtomicAddFp32) {
  AtomicAddIntoRankZero<float>(DataType::FP32, [](int v) { return 0.5f * v; }, [](float v) { return 2.0 * v; });
}
TEST(CommMpi, AtomicAddInt32) {
  AtomicAddIntoRankZero<int32_t>(DataType::INT32, [](int v) { return v; }, [](int32_t v) { return double(v); });
}
TEST(CommMpi, AtomicAddInt8) {
  AtomicAddIntoRankZero<int8_t>(DataType::INT8, [](int v) { return int8_t(v); }, [](int8_t v) { return double(v); });
}
TEST(CommMpi, AtomicAddFp16) {
  AtomicAddIntoRankZero<pto::half>(DataType::FP16, [](int v) { return pto::half(0.25f * v); },
                                   [](pto::half v) { return 4.0 * static_cast<float>(v); });
}
TEST(CommMpi, AtomicAddBf16) {
  AtomicAddIntoRankZero<pto::bfloat16>(DataType::BF16, [](int v) { return pto::bfloat16(float(v)); },
                                       [](pto::bfloat16 v) { return double(static_cast<float>(v)); });
}

// spec/distributed.md §5: the token passes 0 -> 1 -> ... -> 0 with Set/Eq.
TEST(CommMpi, TokenRingWithSetAndEq) {
  ScopedWindow tok(64);
  if (Me() != 0) E().Wait(tok.window.id, 0, Me(), comm::WaitCmp::kEq);
  E().Notify(tok.window.id, (Me() + 1) % N(), 0, Me() + 1, comm::NotifyOp::kSet);
  if (Me() == 0) E().Wait(tok.window.id, 0, N(), comm::WaitCmp::kEq);
  EXPECT_EQ(tok.As<int32_t>()[0], Me() == 0 ? N() : Me());
  E().Barrier();
}

// The hand-rolled barrier of §5: notify row `me` on every peer, wait on every sender's row.
TEST(CommMpi, OneShotBarrierWithAtomicAddAndGe) {
  ScopedWindow sig(4 * N());
  ScopedWindow data(4 * N());
  int32_t mine = 100 + Me();
  for (int peer = 0; peer < N(); ++peer) {
    if (peer == Me()) continue;
    E().Put(data.window.id, peer, 4 * Me(), 0, &mine, 0, 1, 4, DataType::INT32, comm::AtomicType::kNone);
    E().Notify(sig.window.id, peer, 4 * Me(), 1, comm::NotifyOp::kAtomicAdd);
  }
  for (int from = 0; from < N(); ++from) {
    if (from == Me()) continue;
    E().Wait(sig.window.id, 4 * from, 1, comm::WaitCmp::kGe);
    // Wait is an acquire: the data put before the notify is visible to plain loads.
    EXPECT_EQ(data.As<int32_t>()[from], 100 + from);
  }
  E().Barrier();
}

// Simulated cores: several threads of each rank add into one counter on rank 0.
TEST(CommMpi, ThreadsOfOneRankCallConcurrently) {
  constexpr int kThreads = 4, kAdds = 25;
  ScopedWindow w(64);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kAdds; ++i) E().Notify(w.window.id, 0, 0, 1, comm::NotifyOp::kAtomicAdd);
    });
  }
  for (auto& t : threads) t.join();
  if (Me() == 0) E().Wait(w.window.id, 0, N() * kThreads * kAdds, comm::WaitCmp::kEq);
  E().Barrier();
}

// Rank 0 waits on a cell no one notifies with a short timeout; every other
// rank waits with a long one and is released by rank 0's alarm, whether it
// was already waiting or only starts after the alarm.
TEST(CommMpi, WaitTimeoutRaisesTheAlarmOnEveryRank) {
  ScopedWindow sig(4 * N());
  E().Barrier();
  if (Me() == 0) {
    E().SetWaitTimeout(0.5);
    auto e = TimeoutFrom([&] { E().Wait(sig.window.id, 0, 1, comm::WaitCmp::kEq); });
    EXPECT_EQ(e.failure().alarm_rank, 0);
    EXPECT_GE(e.failure().elapsed_s, 0.5);
    EXPECT_EQ(e.kind(), pypto::ErrorKind::kRuntime);
    EXPECT_TRUE(Contains(e.message(), "comm wait timed out on rank 0 after 0."));
    EXPECT_TRUE(Contains(e.message(), "signal cell (window " + std::to_string(sig.window.id) +
                                          ", byte offset 0) holds 0, waiting for it to be == 1"));
    EXPECT_TRUE(Contains(e.message(), "check peers notify this cell; notify writes row `me` on the peer, wait "
                                      "reads the sender's row locally"));
  } else {
    E().SetWaitTimeout(30);
    auto e = TimeoutFrom([&] { E().Wait(sig.window.id, 4 * Me(), 7, comm::WaitCmp::kGe); });
    EXPECT_EQ(e.failure().alarm_rank, 0);
    EXPECT_TRUE(Contains(e.message(), "comm wait on rank " + std::to_string(Me()) + " stopped after"));
    EXPECT_TRUE(Contains(e.message(), "because rank 0 timed out first: signal cell (window " +
                                          std::to_string(sig.window.id) + ", byte offset " +
                                          std::to_string(4 * Me()) + ") holds 0, waiting for it to be >= 7"));
  }
  EXPECT_EQ(E().AlarmRaisedBy(), std::optional<int>(0));
  E().SetWaitTimeout(20);
  E().ClearAlarm();
  EXPECT_EQ(E().AlarmRaisedBy(), std::nullopt);
}

TEST(CommMpi, TimedOutCApiWaitPrintsTheSignalTable) {
  ScopedWindow sig(4 * N());
  int32_t* cells = sig.As<int32_t>();
  // Rank 1 sets rank 0's row 0 so the table shows a non-zero cell.
  if (Me() == 1) E().Notify(sig.window.id, 0, 0, 5, comm::NotifyOp::kSet);
  E().Barrier();
  PyptoRtTensorDesc signal{};
  signal.data = cells;
  signal.ndim = 2;
  signal.shape[0] = N();
  signal.shape[1] = 1;
  signal.strides[0] = 1;
  signal.strides[1] = 1;
  signal.dtype = Code(DataType::INT32);
  if (Me() == 0) {
    E().SetWaitTimeout(0.3);
    const char* error = pypto_comm_wait(&signal, cells + 1, 1, PYPTO_COMM_WAIT_GE);
    ASSERT_NE(error, nullptr);
    std::string table = "signal [" + std::to_string(N()) + ", 1] on rank 0: [0,0]=5 [1,0]=0";
    EXPECT_TRUE(Contains(error, table));
    EXPECT_TRUE(Contains(error, "the wait is on [1,0]"));
    EXPECT_TRUE(Contains(error, "byte offset 4) holds 0, waiting for it to be >= 1"));
  } else {
    const char* error = pypto_comm_wait(&signal, cells + Me(), 1, PYPTO_COMM_WAIT_EQ);
    ASSERT_NE(error, nullptr);
    EXPECT_TRUE(Contains(error, "because rank 0 timed out first"));
  }
  E().SetWaitTimeout(20);
  E().ClearAlarm();
}

TEST(CommMpi, BarrierOrdersEarlierPuts) {
  ScopedWindow w(4 * N());
  int32_t mine = Me() + 1;
  for (int peer = 0; peer < N(); ++peer) {
    E().Put(w.window.id, peer, 4 * Me(), 0, &mine, 0, 1, 4, DataType::INT32, comm::AtomicType::kNone);
  }
  E().Barrier();
  for (int from = 0; from < N(); ++from) EXPECT_EQ(E().ReadSignal(w.window.id, 4 * from), from + 1);
  E().Barrier();
}

TEST(CommMpi, AllReduceFp32AndInt32) {
  constexpr int kCount = 5;
  auto expect = [](comm::ReduceOp op, int j) {
    double acc = op == comm::ReduceOp::kProd ? 1 : (op == comm::ReduceOp::kSum ? 0 : NAN);
    for (int r = 0; r < N(); ++r) {
      double v = r + 1 + j;
      if (op == comm::ReduceOp::kSum) acc += v;
      if (op == comm::ReduceOp::kProd) acc *= v;
      if (op == comm::ReduceOp::kMax) acc = std::isnan(acc) ? v : std::max(acc, v);
      if (op == comm::ReduceOp::kMin) acc = std::isnan(acc) ? v : std::min(acc, v);
    }
    return acc;
  };
  for (auto op : {comm::ReduceOp::kSum, comm::ReduceOp::kMax, comm::ReduceOp::kMin, comm::ReduceOp::kProd}) {
    float f[kCount];
    int32_t i[kCount];
    for (int j = 0; j < kCount; ++j) f[j] = i[j] = Me() + 1 + j;
    E().AllReduce(f, kCount, DataType::FP32, op);
    E().AllReduce(i, kCount, DataType::INT32, op);
    for (int j = 0; j < kCount; ++j) {
      EXPECT_EQ(f[j], expect(op, j)) << comm::ReduceOpName(op) << " FP32 element " << j;
      EXPECT_EQ(i[j], expect(op, j)) << comm::ReduceOpName(op) << " INT32 element " << j;
    }
  }
}

TEST(CommMpi, BroadcastFromTheLastRank) {
  char text[32] = {};
  if (Me() == N() - 1) std::strcpy(text, "from the last rank");
  E().Broadcast(text, sizeof(text), N() - 1);
  EXPECT_STREQ(text, "from the last rank");
}

TEST(CommMpi, AllGatherPlacesEachRankAtItsIndex) {
  int32_t mine[3] = {Me() * 10, Me() * 10 + 1, Me() * 10 + 2};
  std::vector<int32_t> all(3 * N(), -1);
  E().AllGather(mine, all.data(), sizeof(mine));
  for (int r = 0; r < N(); ++r) {
    for (int k = 0; k < 3; ++k) EXPECT_EQ(all[3 * r + k], r * 10 + k);
  }
}

TEST(CommMpi, CApiTranslatesWindowAddressesToPeers) {
  EXPECT_EQ(pypto_comm_rank(), Me());
  EXPECT_EQ(pypto_comm_world_size(), N());
  ScopedWindow data(256);
  ScopedWindow sig(64);
  const int right = (Me() + 1) % N(), left = (Me() + N() - 1) % N();
  // A 2x4 INT32 tile into rows 2..3 (of 8 INT32 per row) of the right neighbour's window.
  int32_t tile[2][4];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) tile[i][j] = Me() * 100 + i * 10 + j;
  }
  int32_t* dst = data.As<int32_t>() + 2 * 8;
  ASSERT_EQ(pypto_comm_put(right, dst, 32, tile, 16, 2, 16, Code(DataType::INT32), PYPTO_COMM_ATOMIC_NONE), nullptr);
  ASSERT_EQ(pypto_comm_notify(right, sig.As<int32_t>(), 1, PYPTO_COMM_NOTIFY_ATOMIC_ADD), nullptr);
  PyptoRtTensorDesc signal{};
  signal.data = sig.As<int32_t>();
  signal.ndim = 1;
  signal.shape[0] = 16;
  signal.strides[0] = 1;
  ASSERT_EQ(pypto_comm_wait(&signal, sig.As<int32_t>(), 1, PYPTO_COMM_WAIT_GE), nullptr);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 4; ++j) EXPECT_EQ(dst[i * 8 + j], left * 100 + i * 10 + j);
  }
  // Pull the same rows back from the right neighbour: they hold this rank's tile.
  int32_t back[2][4] = {};
  ASSERT_EQ(pypto_comm_get(back, 16, right, dst, 32, 2, 16), nullptr);
  EXPECT_EQ(std::memcmp(back, tile, sizeof(tile)), 0);
  E().Barrier();
}

TEST(CommMpi, CApiErrorsNameTheProblemAndTheFix) {
  ScopedWindow w(64);
  int32_t local[12] = {};
  std::string me = std::to_string(Me()), n = std::to_string(N());

  const char* outside = pypto_comm_put(0, local, 16, local, 16, 1, 16, Code(DataType::INT32), 0);
  ASSERT_NE(outside, nullptr);
  EXPECT_TRUE(Contains(outside, "comm put on rank " + me + ": address "));
  EXPECT_TRUE(Contains(outside, "is not inside any window of this rank"));
  EXPECT_TRUE(Contains(outside, "the tensor is not a window buffer (pld.alloc_window_buffer / pld.window)"));

  const char* peer = pypto_comm_notify(N(), w.As<int32_t>(), 1, PYPTO_COMM_NOTIFY_SET);
  ASSERT_NE(peer, nullptr);
  EXPECT_TRUE(Contains(peer, "comm notify on rank " + me + ": peer " + n + " is out of range; the job has " + n +
                                 " ranks, so peers are 0.." + std::to_string(N() - 1)));

  const char* past = pypto_comm_put(0, w.As<int32_t>() + 8, 16, local, 16, 3, 16, Code(DataType::INT32), 0);
  ASSERT_NE(past, nullptr);
  EXPECT_TRUE(Contains(past, "the destination region [32, 80) (3 rows of 16 bytes, 16 bytes apart) runs past the "
                             "end of window " + std::to_string(w.window.id) + " (64 bytes) by 16 bytes"));

  const char* dtype = pypto_comm_put(0, w.As<int32_t>(), 16, local, 16, 1, 16, Code(DataType::FP64),
                                     PYPTO_COMM_ATOMIC_ADD);
  ASSERT_NE(dtype, nullptr);
  EXPECT_TRUE(Contains(dtype, "atomic Add does not support dtype FP64"));

  const char* misaligned = pypto_comm_notify(0, reinterpret_cast<int32_t*>(w.As<char>() + 2), 1, 0);
  ASSERT_NE(misaligned, nullptr);
  EXPECT_TRUE(Contains(misaligned, "byte offset 2 is not an INT32 cell"));
  E().Barrier();
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  comm::Engine& engine = comm::Start("mpi");
  // A hang in a broken test ends in an error well before ctest's timeout.
  engine.SetWaitTimeout(20);
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // Every rank exits with the job's verdict: a failure on any rank fails it.
  engine.AllReduce(&failed, 1, DataType::INT32, comm::ReduceOp::kMax);
  comm::Finalize();
  return failed;
}
