// Comm domains (spec/distributed.md §4.3): windows of a subset of the world's
// ranks, allocated by the members only, whose peers are domain ranks. The
// tests that need three ranks skip at two; every test ends in a world barrier
// so that the ranks outside a domain wait for its members before the next test.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "plugin/error_matchers.h"
#include "pypto/comm/registry.h"
#include "pypto/runtime/c_api_comm.h"
#include "comm/mpi/mpi_test_util.h"

using pypto::Error;
using pypto::ir::DataType;
using pypto::testing::Contains;
namespace comm = pypto::comm;
using pypto::testing::mpi::E;
using pypto::testing::mpi::Me;
using pypto::testing::mpi::N;
using pypto::testing::mpi::Desc;

namespace {

bool In(const std::vector<int>& members) {
  for (int r : members) {
    if (r == Me()) return true;
  }
  return false;
}

// A window of `members` (only members construct one), freed at the end of the test.
struct DomainWindow {
  DomainWindow(int64_t bytes, const std::vector<int>& members) : window(E().AllocWindow(bytes, members)) {}
  ~DomainWindow() { E().FreeWindow(window.id); }
  template <class T>
  T* As() const { return static_cast<T*>(window.base); }
  int Rank() const { return window.domain->rank; }
  int Size() const { return window.domain->size(); }
  comm::Window window;
};


template <class F>
Error ErrorFrom(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a pypto::Error, but nothing was thrown";
  return Error(pypto::ErrorKind::kRuntime, "");
}

#define REQUIRE_THREE_RANKS() \
  if (N() < 3) GTEST_SKIP() << "needs 3 ranks, the job has " << N()

TEST(CommDomains, TheWorldIsTheDefaultDomain) {
  std::vector<int> everyone;
  for (int r = 0; r < N(); ++r) everyone.push_back(r);
  DomainWindow implicit(64, {});
  DomainWindow listed(64, everyone);
  for (const DomainWindow* w : {&implicit, &listed}) {
    EXPECT_EQ(w->window.domain->id, comm::kWorldDomain);
    EXPECT_EQ(w->window.domain->members, everyone);
    EXPECT_EQ(w->Rank(), Me());
    EXPECT_EQ(pypto_comm_domain_rank(w->As<char>() + 63), Me());
    EXPECT_EQ(pypto_comm_domain_size(w->As<char>()), N());
  }
  int local = 0;
  EXPECT_EQ(pypto_comm_domain_rank(&local), -1);
  EXPECT_EQ(pypto_comm_domain_size(&local), -1);
  EXPECT_EQ(pypto_comm_domain_rank(implicit.As<char>() + 64), -1) << "one past the window";
  E().Barrier();
}

// Ranks 1 and 2 pass a row to each other by domain rank, then allreduce in their domain; rank 0
// meanwhile uses a domain of its own, so neither waits for the other.
TEST(CommDomains, RanksOneAndTwoOfThreeTalkInTheirDomain) {
  REQUIRE_THREE_RANKS();
  constexpr int kCount = 8;
  if (In({1, 2})) {
    DomainWindow data(4 * kCount, {1, 2});
    DomainWindow sig(4 * 2, {1, 2});
    ASSERT_EQ(data.Rank(), Me() - 1);
    ASSERT_EQ(data.Size(), 2);
    EXPECT_EQ(pypto_comm_domain_rank(data.As<int32_t>() + 3), Me() - 1);
    EXPECT_EQ(pypto_comm_domain_size(sig.As<int32_t>()), 2);

    const int me = data.Rank(), other = 1 - me;
    int32_t row[kCount];
    for (int j = 0; j < kCount; ++j) row[j] = Me() * 100 + j;  // world rank in the payload
    ASSERT_EQ(pypto_comm_put(other, data.As<int32_t>(), 0, row, 0, 1, sizeof(row),
                             static_cast<int32_t>(DataType::INT32.code()), PYPTO_COMM_ATOMIC_NONE),
              nullptr);
    ASSERT_EQ(pypto_comm_notify(other, sig.As<int32_t>() + me, 1, PYPTO_COMM_NOTIFY_ATOMIC_ADD), nullptr);
    auto sig_desc = Desc(sig.As<int32_t>(), {2, 1}, DataType::INT32);
    ASSERT_EQ(pypto_comm_wait(&sig_desc, sig.As<int32_t>() + other, 1, PYPTO_COMM_WAIT_GE), nullptr);
    const int other_world = other + 1;
    for (int j = 0; j < kCount; ++j) ASSERT_EQ(data.As<int32_t>()[j], other_world * 100 + j) << "element " << j;

    // A collective over the two: the [NR, 1] signal has one row per domain rank.
    DomainWindow sum(4 * kCount, {1, 2});
    DomainWindow sum_sig(4 * 2, {1, 2});
    for (int j = 0; j < kCount; ++j) sum.As<float>()[j] = static_cast<float>(Me() * j);
    auto sum_desc = Desc(sum.As<float>(), {1, kCount}, DataType::FP32);
    auto sum_sig_desc = Desc(sum_sig.As<int32_t>(), {2, 1}, DataType::INT32);
    ASSERT_EQ(pypto_comm_allreduce(&sum_desc, &sum_sig_desc, 0, 0), nullptr);
    for (int j = 0; j < kCount; ++j) EXPECT_EQ(sum.As<float>()[j], 3.0f * j) << "element " << j;
  } else if (Me() == 0) {
    DomainWindow alone(64, {0});
    EXPECT_EQ(alone.Rank(), 0);
    EXPECT_EQ(alone.Size(), 1);
    ASSERT_EQ(pypto_comm_notify(0, alone.As<int32_t>(), 7, PYPTO_COMM_NOTIFY_SET), nullptr);
    EXPECT_EQ(E().ReadSignal(alone.window.id, 0), 7);
  }
  E().Barrier();
}

// {0, 1} and {1, 2}: rank 1 is domain rank 1 of the first and domain rank 0 of the second, and
// allgathers in both.
TEST(CommDomains, OverlappingDomainsNumberTheSharedRankApart) {
  REQUIRE_THREE_RANKS();
  constexpr int kSize = 4;
  const std::vector<std::vector<int>> domains = {{0, 1}, {1, 2}};
  for (const auto& members : domains) {
    if (!In(members)) continue;
    DomainWindow out(4 * kSize * 2, members);
    DomainWindow sig(4 * 2, members);
    EXPECT_EQ(out.window.domain->members, members);
    EXPECT_EQ(pypto_comm_domain_rank(out.As<int32_t>()), Me() == members[0] ? 0 : 1);
    int32_t mine[kSize];
    for (int j = 0; j < kSize; ++j) mine[j] = Me() * 10 + j;
    auto mine_desc = Desc(mine, {1, kSize}, DataType::INT32);
    auto out_desc = Desc(out.As<int32_t>(), {2, kSize}, DataType::INT32);
    auto sig_desc = Desc(sig.As<int32_t>(), {2, 1}, DataType::INT32);
    ASSERT_EQ(pypto_comm_allgather(&mine_desc, &out_desc, &sig_desc), nullptr);
    for (int r = 0; r < 2; ++r) {
      for (int j = 0; j < kSize; ++j) {
        EXPECT_EQ(out.As<int32_t>()[r * kSize + j], members[r] * 10 + j) << "domain rank " << r << " element " << j;
      }
    }
  }
  E().Barrier();
}

TEST(CommDomains, PeersOutsideTheDomainAndMixedDomainsAreErrors) {
  REQUIRE_THREE_RANKS();
  const std::string me = std::to_string(Me());
  if (In({1, 2})) {
    DomainWindow w(64, {1, 2});
    const char* peer = pypto_comm_notify(2, w.As<int32_t>(), 1, PYPTO_COMM_NOTIFY_SET);
    ASSERT_NE(peer, nullptr);
    EXPECT_TRUE(Contains(peer, "comm notify on rank " + me + ": peer 2 is out of range; window " +
                                   std::to_string(w.window.id) + " belongs to comm domain {1, 2} of 2 ranks, so "
                                   "peers are its domain ranks 0..1"));
    int32_t local[4] = {};
    const char* get = pypto_comm_get(local, 16, -1, w.As<int32_t>(), 16, 1, 16);
    ASSERT_NE(get, nullptr);
    EXPECT_TRUE(Contains(get, "peer -1 is out of range"));

    auto data = Desc(w.As<float>(), {4}, DataType::FP32);
    auto sig = Desc(w.As<int32_t>() + 8, {2, 1}, DataType::INT32);
    const char* root = pypto_comm_broadcast(&data, &sig, 2);
    ASSERT_NE(root, nullptr);
    EXPECT_TRUE(Contains(root, "comm broadcast: root 2 is not a rank of comm domain {1, 2} (domain ranks 0..1)"));

    // The two-row signal of a three-rank world is too small for the world, and fine for {1, 2}.
    DomainWindow world(64, {});
    auto world_data = Desc(world.As<float>(), {4}, DataType::FP32);
    const char* small = pypto_comm_allreduce(&world_data, &sig, 0, 0);
    ASSERT_NE(small, nullptr);
    EXPECT_TRUE(Contains(small, "the signal is a window of comm domain {1, 2} but the call's other windows are in "
                                "the world (" + std::to_string(N()) + " ranks)"));
  } else {
    DomainWindow world(64, {});  // the world window ranks 1 and 2 allocate above
  }
  Error outsider = ErrorFrom([] { E().AllocWindow(64, {Me() == 0 ? 1 : 0}); });
  EXPECT_TRUE(Contains(outsider.message(), "comm alloc_window on rank " + me + ": members [" +
                                               std::string(Me() == 0 ? "1" : "0") + "] do not include this rank"));
  Error unsorted = ErrorFrom([] { E().AllocWindow(64, {2, 1, 0}); });
  EXPECT_TRUE(Contains(unsorted.message(), "members [2, 1, 0] are not distinct and ascending"));
  Error outside = ErrorFrom([] { E().AllocWindow(64, {0, N()}); });
  EXPECT_TRUE(Contains(outside.message(), "name rank " + std::to_string(N()) + ", not a rank of the world (0.." +
                                              std::to_string(N() - 1) + ")"));
  E().Barrier();
}

}  // namespace
