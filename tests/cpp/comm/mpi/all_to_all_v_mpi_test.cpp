// pypto_comm_all_to_all_v across ranks: whole MAX_RECV-row blocks travel, the clamped counts are
// published into the receivers' recv_counts, and the signal is zero again after each call.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
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

struct Window {
  explicit Window(int64_t bytes) : window(E().AllocWindow(bytes)) {}
  ~Window() { E().FreeWindow(window.id); }
  template <class T>
  T* As() const { return static_cast<T*>(window.base); }
  comm::Window window;
};

constexpr int kMaxRecv = 3, kSize = 4;
int32_t Value(int from, int to, int i, int j) { return from * 1000 + to * 100 + i * 10 + j; }
// Rows rank `from` means for rank `to`: 0 up to past the capacity, so some counts are clamped.
int32_t Wanted(int from, int to) { return (from + 2 * to) % (kMaxRecv + 2); }

TEST(CommAllToAllV, WholeBlocksTravelAndClampedCountsArePublished) {
  const int rows = N() * kMaxRecv;
  Window target(4 * rows * kSize), sig(4 * N()), recv(4 * N());
  std::vector<int32_t> input(rows * kSize), counts(N());
  for (int d = 0; d < N(); ++d) {
    counts[d] = Wanted(Me(), d);
    for (int i = 0; i < kMaxRecv; ++i) {
      for (int j = 0; j < kSize; ++j) input[(d * kMaxRecv + i) * kSize + j] = Value(Me(), d, i, j);
    }
  }
  auto input_desc = Desc(input.data(), {rows, kSize}, DataType::INT32);
  auto target_desc = Desc(target.As<int32_t>(), {rows, kSize}, DataType::INT32);
  auto sig_desc = Desc(sig.As<int32_t>(), {N(), 1}, DataType::INT32);
  auto counts_desc = Desc(counts.data(), {N()}, DataType::INT32);
  auto recv_desc = Desc(recv.As<int32_t>(), {N(), 1}, DataType::INT32);
  for (int round = 1; round <= 2; ++round) {
    ASSERT_EQ(pypto_comm_all_to_all_v(&input_desc, &target_desc, &sig_desc, &counts_desc, &recv_desc), nullptr);
    for (int s = 0; s < N(); ++s) {
      EXPECT_EQ(recv.As<int32_t>()[s], std::min(Wanted(s, Me()), kMaxRecv)) << "from " << s << " round " << round;
      for (int i = 0; i < kMaxRecv; ++i) {  // every row of the block, counted or not
        for (int j = 0; j < kSize; ++j) {
          ASSERT_EQ(target.As<int32_t>()[(s * kMaxRecv + i) * kSize + j], Value(s, Me(), i, j))
              << "from " << s << " row " << i << " round " << round;
        }
      }
    }
    // Between two barriers: every rank has returned, and none has started the next call.
    E().Barrier();
    for (int s = 0; s < N(); ++s) EXPECT_EQ(E().ReadSignal(sig.window.id, 4 * s), 0) << "cell " << s;
    E().Barrier();
  }
}

TEST(CommAllToAllV, BadShapesCountsAndSharedWindowsAreErrors) {
  const int rows = N() * kMaxRecv;
  Window target(4 * (rows + 1) * kSize), sig(4 * N()), recv(4 * N());
  std::vector<int32_t> input((rows + 1) * kSize), counts(N(), 1);
  auto input_desc = Desc(input.data(), {rows, kSize}, DataType::INT32);
  auto target_desc = Desc(target.As<int32_t>(), {rows, kSize}, DataType::INT32);
  auto sig_desc = Desc(sig.As<int32_t>(), {N(), 1}, DataType::INT32);
  auto counts_desc = Desc(counts.data(), {N()}, DataType::INT32);
  auto recv_desc = Desc(recv.As<int32_t>(), {N(), 1}, DataType::INT32);

  auto odd_input = Desc(input.data(), {rows + 1, kSize}, DataType::INT32);
  auto odd_target = Desc(target.As<int32_t>(), {rows + 1, kSize}, DataType::INT32);
  const char* odd = pypto_comm_all_to_all_v(&odd_input, &odd_target, &sig_desc, &counts_desc, &recv_desc);
  ASSERT_NE(odd, nullptr);
  EXPECT_TRUE(Contains(odd, "comm all_to_all_v: target has " + std::to_string(rows + 1) +
                                " rows, not a positive multiple of NR = " + std::to_string(N())));

  auto short_counts = Desc(counts.data(), {N() - 1}, DataType::INT32);
  const char* few = pypto_comm_all_to_all_v(&input_desc, &target_desc, &sig_desc, &short_counts, &recv_desc);
  ASSERT_NE(few, nullptr);
  EXPECT_TRUE(Contains(few, "send_counts must be INT32 [NR] or [NR, 1] with NR = " + std::to_string(N())));

  const char* shared = pypto_comm_all_to_all_v(&input_desc, &target_desc, &sig_desc, &counts_desc, &sig_desc);
  ASSERT_NE(shared, nullptr);
  EXPECT_TRUE(Contains(shared, "signal and recv_counts lie in one window"));

  counts[N() - 1] = -2;
  const char* negative = pypto_comm_all_to_all_v(&input_desc, &target_desc, &sig_desc, &counts_desc, &recv_desc);
  ASSERT_NE(negative, nullptr);
  EXPECT_TRUE(Contains(negative, "send_counts[" + std::to_string(N() - 1) + "] is -2; a row count is >= 0"));
  E().Barrier();
}

}  // namespace
