// The collectives of the C ABI (pypto_comm_allreduce, ...) across ranks. Each
// runs twice on one signal: the credit barriers must leave it all zero.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
#include "pypto/isa/types.h"
#include "pypto/runtime/c_api_comm.h"
#include "comm/mpi/mpi_test_util.h"

using pypto::ir::DataType;
using pypto::testing::Contains;
namespace comm = pypto::comm;
using pypto::testing::mpi::E;
using pypto::testing::mpi::Me;
using pypto::testing::mpi::N;
using pypto::testing::mpi::Desc;

namespace {

struct Windows {
  Windows(int64_t data_bytes, int64_t signal_cells)
      : data(E().AllocWindow(data_bytes)), signal(E().AllocWindow(4 * signal_cells)), cells(signal_cells) {}
  ~Windows() {
    E().FreeWindow(signal.id);
    E().FreeWindow(data.id);
  }
  // Read between two engine barriers: every rank has returned from the collective, and none has
  // started the next one (whose first notify may land here early, as the protocol allows).
  bool SignalIsZero() const {
    E().Barrier();
    bool zero = true;
    for (int64_t i = 0; i < cells; ++i) zero = zero && E().ReadSignal(signal.id, 4 * i) == 0;
    E().Barrier();
    return zero;
  }
  comm::Window data, signal;
  int64_t cells;
};

void ExpectOk(const char* error) { EXPECT_EQ(error, nullptr) << error; }

TEST(CommCollectives, MeshAllReduceSumFp32TwiceOnOneSignal) {
  constexpr int kCount = 37;
  Windows w(4 * kCount, N());
  auto* data = static_cast<float*>(w.data.base);
  auto desc = Desc(data, {1, kCount}, DataType::FP32);
  auto sig = Desc(w.signal.base, {N(), 1}, DataType::INT32);
  for (int round = 1; round <= 2; ++round) {
    for (int j = 0; j < kCount; ++j) data[j] = Me() + j;
    ExpectOk(pypto_comm_allreduce(&desc, &sig, static_cast<int32_t>(comm::ReduceOp::kSum), 0));
    for (int j = 0; j < kCount; ++j) ASSERT_EQ(data[j], N() * (N() - 1) / 2 + N() * j) << "round " << round;
    EXPECT_TRUE(w.SignalIsZero());
  }
}

TEST(CommCollectives, MeshAllReduceMaxFp16) {
  constexpr int kCount = 9;
  Windows w(2 * kCount, N());
  auto* data = static_cast<pto::half*>(w.data.base);
  auto desc = Desc(data, {kCount}, DataType::FP16);
  auto sig = Desc(w.signal.base, {N()}, DataType::INT32);
  for (int j = 0; j < kCount; ++j) data[j] = pto::half(0.5f * ((Me() + j) % N()));
  ExpectOk(pypto_comm_allreduce(&desc, &sig, static_cast<int32_t>(comm::ReduceOp::kMax), 0));
  for (int j = 0; j < kCount; ++j) EXPECT_EQ(static_cast<float>(data[j]), 0.5f * (N() - 1));
  EXPECT_TRUE(w.SignalIsZero());
}

TEST(CommCollectives, RingAllReduceSumFp32TwiceOnOneSignal) {
  constexpr int kCount = 50;
  const int rows = 2 * (N() - 1);
  Windows w(4 * kCount, rows * N());
  auto* data = static_cast<float*>(w.data.base);
  auto desc = Desc(data, {2, kCount / 2}, DataType::FP32);
  auto sig = Desc(w.signal.base, {rows, N()}, DataType::INT32);
  for (int round = 1; round <= 2; ++round) {
    for (int j = 0; j < kCount; ++j) data[j] = (Me() + 1) * (j + round);
    ExpectOk(pypto_comm_allreduce(&desc, &sig, static_cast<int32_t>(comm::ReduceOp::kSum), 1));
    for (int j = 0; j < kCount; ++j) ASSERT_EQ(data[j], N() * (N() + 1) / 2 * (j + round)) << "element " << j;
    EXPECT_TRUE(w.SignalIsZero());
  }
}

TEST(CommCollectives, BarrierBroadcastAllGather) {
  constexpr int kSize = 6;
  // Rows 0..N-1 receive the allgather, row N the broadcast: a fast rank's allgather must not land
  // on a row a slow rank still checks.
  Windows w(4 * kSize * (N() + 1), N());
  auto sig = Desc(w.signal.base, {N(), 1}, DataType::INT32);
  ExpectOk(pypto_comm_barrier(&sig));
  ExpectOk(pypto_comm_barrier(&sig));
  EXPECT_TRUE(w.SignalIsZero());

  auto* data = static_cast<int32_t*>(w.data.base);
  int32_t* broadcast = data + N() * kSize;
  auto row = Desc(broadcast, {1, kSize}, DataType::INT32);
  for (int j = 0; j < kSize; ++j) broadcast[j] = Me() == N() - 1 ? 70 + j : -1;
  ExpectOk(pypto_comm_broadcast(&row, &sig, N() - 1));
  for (int j = 0; j < kSize; ++j) EXPECT_EQ(broadcast[j], 70 + j);
  EXPECT_TRUE(w.SignalIsZero());

  int32_t mine[kSize];
  for (int j = 0; j < kSize; ++j) mine[j] = Me() * 10 + j;
  auto mine_desc = Desc(mine, {1, kSize}, DataType::INT32);
  auto out = Desc(data, {N(), kSize}, DataType::INT32);
  ExpectOk(pypto_comm_allgather(&mine_desc, &out, &sig));
  for (int r = 0; r < N(); ++r) {
    for (int j = 0; j < kSize; ++j) EXPECT_EQ(data[r * kSize + j], r * 10 + j);
  }
  EXPECT_TRUE(w.SignalIsZero());
}

TEST(CommCollectives, ReduceScatterAndAllToAll) {
  constexpr int kSize = 4;
  Windows w(4 * kSize * N(), N());
  Windows out_w(4 * kSize * N(), 1);
  auto sig = Desc(w.signal.base, {N(), 1}, DataType::INT32);
  auto* data = static_cast<int32_t*>(w.data.base);
  auto rows = Desc(data, {N(), kSize}, DataType::INT32);
  for (int r = 0; r < N(); ++r) {
    for (int j = 0; j < kSize; ++j) data[r * kSize + j] = (Me() + 1) * 100 + r * 10 + j;
  }
  ExpectOk(pypto_comm_reduce_scatter(&rows, &sig, static_cast<int32_t>(comm::ReduceOp::kSum)));
  for (int j = 0; j < kSize; ++j) {
    EXPECT_EQ(data[Me() * kSize + j], 100 * N() * (N() + 1) / 2 + N() * (Me() * 10 + j));
  }
  EXPECT_TRUE(w.SignalIsZero());

  std::vector<int32_t> stage(N() * kSize);
  for (int d = 0; d < N(); ++d) {
    for (int j = 0; j < kSize; ++j) stage[d * kSize + j] = Me() * 1000 + d * 10 + j;
  }
  auto stage_desc = Desc(stage.data(), {N(), kSize}, DataType::INT32);
  auto* out = static_cast<int32_t*>(out_w.data.base);
  auto out_desc = Desc(out, {N(), kSize}, DataType::INT32);
  ExpectOk(pypto_comm_all_to_all(&stage_desc, &out_desc, &sig));
  for (int s = 0; s < N(); ++s) {
    for (int j = 0; j < kSize; ++j) EXPECT_EQ(out[s * kSize + j], s * 1000 + Me() * 10 + j);
  }
  EXPECT_TRUE(w.SignalIsZero());
}

TEST(CommCollectives, ASignalTooSmallForTheWorldIsAnError) {
  Windows w(64, N());
  auto data = Desc(w.data.base, {16}, DataType::FP32);
  auto small = Desc(w.signal.base, {N() - 1, 1}, DataType::INT32);
  const char* error = pypto_comm_allreduce(&data, &small, 0, 0);
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(Contains(error, "comm allreduce: the signal has shape [" + std::to_string(N() - 1) +
                                  ", 1] but this call needs at least [" + std::to_string(N()) + ", 1]"));
  E().Barrier();
}

}  // namespace
