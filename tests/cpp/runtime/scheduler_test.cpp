// Running tasks: results that do not depend on the worker count, spmd blocks
// spread over clusters, cluster (Group) tasks, and kernel faults.
#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using testing::At;
using testing::ErrorOf;
using testing::TensorArg;

// dst = dst * 3 + src + k, element-wise: every reordering of two tasks that
// touch the same element changes the result.
void MulAdd(const int64_t* args, PyptoRtCoreContext*) {
  const auto& src = TensorArg(args, 0);
  const auto& dst = TensorArg(args, 1);
  for (int64_t r = 0; r < dst.shape[0]; ++r) {
    for (int64_t c = 0; c < dst.shape[1]; ++c) At(dst, r, c) = At(dst, r, c) * 3 + At(src, r, c) + args[2];
    std::this_thread::yield();
  }
}

// dst = src + k, element-wise (a plain overwrite: WAW and WAR hazards).
void Copy(const int64_t* args, PyptoRtCoreContext*) {
  const auto& src = TensorArg(args, 0);
  const auto& dst = TensorArg(args, 1);
  for (int64_t r = 0; r < dst.shape[0]; ++r) {
    for (int64_t c = 0; c < dst.shape[1]; ++c) At(dst, r, c) = At(src, r, c) + args[2];
  }
}

struct Step {
  bool accumulate;
  Dims src_offsets, dst_offsets, shape;
  int64_t k;
};

// 200 tasks over windows of one 8x16 buffer: rows, half rows and 2x8 blocks,
// read and written in overlapping patterns.
std::vector<Step> MakeProgram() {
  std::vector<Step> steps;
  uint64_t state = 12345;
  auto next = [&](uint64_t n) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<int64_t>((state >> 33) % n);
  };
  for (int i = 0; i < 200; ++i) {
    Step s;
    s.accumulate = next(3) != 0;
    s.k = i;
    switch (next(3)) {
      case 0: s.shape = {1, 16}; s.src_offsets = {next(8), 0}; s.dst_offsets = {next(8), 0}; break;
      case 1: s.shape = {1, 8}; s.src_offsets = {next(8), 8 * next(2)}; s.dst_offsets = {next(8), 8 * next(2)}; break;
      default: s.shape = {2, 8}; s.src_offsets = {next(7), 4 * next(3)}; s.dst_offsets = {next(7), 4 * next(3)}; break;
    }
    steps.push_back(s);
  }
  return steps;
}

Tensor Initial() {
  Tensor t = Tensor::Allocate(ir::DataType::INT64, {8, 16});
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 16; ++c) At(t, r, c) = r * 16 + c;
  return t;
}

std::vector<int64_t> Values(const Tensor& t) {
  const auto* p = static_cast<const int64_t*>(t.data());
  return std::vector<int64_t>(p, p + t.numel());
}

// The program run one task after another, in submission order.
std::vector<int64_t> Reference(const std::vector<Step>& steps) {
  Tensor buf = Initial();
  for (const Step& s : steps) {
    PyptoRtTensorDesc src = buf.View(s.src_offsets, s.shape).Describe();
    PyptoRtTensorDesc dst = buf.View(s.dst_offsets, s.shape).Describe();
    int64_t args[3] = {reinterpret_cast<int64_t>(&src), reinterpret_cast<int64_t>(&dst), s.k};
    (s.accumulate ? MulAdd : Copy)(args, nullptr);
  }
  return Values(buf);
}

TEST(RuntimeScheduler, ResultsMatchSequentialOrderOnAnyWorkerCount) {
  std::vector<Step> steps = MakeProgram();
  std::vector<int64_t> expected = Reference(steps);
  for (int workers : {1, 2, 8}) {
    Runtime rt(RuntimeOptions{workers});
    for (int run = 0; run < 50; ++run) {
      Tensor buf = Initial();
      for (const Step& s : steps) {
        TaskArgs args;
        Tensor dst = buf.View(s.dst_offsets, s.shape);
        args.AddInput(buf.View(s.src_offsets, s.shape));
        if (s.accumulate) {
          args.AddInOut(dst);
        } else {
          args.AddOutputExisting(dst);
        }
        args.AddScalar(s.k);
        rt.Submit(KernelSet::Aiv({s.accumulate ? "muladd" : "copy", s.accumulate ? MulAdd : Copy}), args);
      }
      rt.WaitAll();
      ASSERT_EQ(Values(buf), expected) << workers << " workers, run " << run;
    }
  }
}

std::atomic<int> g_arrived{0};

// Each block writes its index + 1 into its row, after all blocks have
// arrived: only blocks running at the same time on different clusters get
// past the rendezvous.
void BlockRow(const int64_t* args, PyptoRtCoreContext* ctx) {
  const auto& out = TensorArg(args, 0);
  ++g_arrived;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (g_arrived.load() < ctx->block_num && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  if (g_arrived.load() < ctx->block_num) {
    pypto_rt_kernel_fail(ctx, "rendezvous", nullptr, 0, "blocks did not run concurrently");
    return;
  }
  for (int64_t c = 0; c < out.shape[1]; ++c) At(out, ctx->block_idx, c) = ctx->block_idx + 1;
}

TEST(RuntimeScheduler, SpmdBlocksSpreadOverClusters) {
  Runtime rt(RuntimeOptions{4});
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {4, 8});
  g_arrived = 0;
  TaskId id = rt.Submit(KernelSet::Aiv({"block_row", BlockRow}), TaskArgs().AddOutputExisting(out), 4);
  rt.WaitAll();
  for (int r = 0; r < 4; ++r) EXPECT_EQ(At(out, r, 7), r + 1);
  std::vector<BlockRecord> blocks = rt.BlocksOf(id);
  ASSERT_EQ(blocks.size(), 4u);
  std::set<int32_t> clusters;
  for (int b = 0; b < 4; ++b) {
    EXPECT_EQ(blocks[b].block_idx, b);
    clusters.insert(blocks[b].cluster_id);
  }
  EXPECT_EQ(clusters.size(), 4u);
}

TEST(RuntimeScheduler, MoreBlocksThanClustersAllRun) {
  Runtime rt(RuntimeOptions{3});
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {10, 1});
  auto kernel = [](const int64_t* args, PyptoRtCoreContext* ctx) {
    At(TensorArg(args, 0), ctx->block_idx, 0) = ctx->block_num * 100 + ctx->block_idx;
  };
  rt.Submit(KernelSet::Aic({"fill", kernel}), TaskArgs().AddOutputExisting(out), 10);
  rt.WaitAll();
  for (int b = 0; b < 10; ++b) EXPECT_EQ(At(out, b, 0), 1000 + b);
}

std::atomic<int> g_sync_started{0};
std::atomic<bool> g_blocker_released{false};

// Holds its cluster until the test lets it go.
void Blocker(const int64_t*, PyptoRtCoreContext*) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!g_blocker_released.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
}

// Each block waits for every block of its grid to run, as blocks that synchronize with each other do: it
// writes 1 only if they all ran at the same time.
void WaitForTheWholeGrid(const int64_t* args, PyptoRtCoreContext* ctx) {
  ++g_sync_started;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (g_sync_started.load() < ctx->block_num && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  At(TensorArg(args, 0), ctx->block_idx, 0) = g_sync_started.load() >= ctx->block_num ? 1 : -1;
}

// A runtime of four clusters, one of them held by a blocker until the test releases it.
struct OneClusterHeld {
  OneClusterHeld() {
    g_sync_started = 0;
    g_blocker_released = false;
    rt.Submit(KernelSet::Aiv({"blocker", Blocker}), TaskArgs().AddInOut(busy));
  }
  Runtime rt{RuntimeOptions{4}};
  Tensor busy = Tensor::Allocate(ir::DataType::INT64, {1, 1});
};

TEST(RuntimeScheduler, SyncStartBlocksStartOnlyWhenEveryBlockHasACluster) {
  OneClusterHeld held;
  Runtime& rt = held.rt;
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {4, 1});
  rt.Submit(KernelSet::Aiv({"grid", WaitForTheWholeGrid}), TaskArgs().AddOutputExisting(out), 4, {},
            /*sync_start=*/true);
  // Three clusters are free, but the grid needs four at once.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(g_sync_started.load(), 0);
  g_blocker_released = true;
  rt.WaitAll();
  for (int b = 0; b < 4; ++b) EXPECT_EQ(At(out, b, 0), 1) << "block " << b;
}

TEST(RuntimeScheduler, WithoutSyncStartBlocksStartOnTheClustersThatAreFree) {
  OneClusterHeld held;
  Runtime& rt = held.rt;
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {3, 1});
  rt.Submit(KernelSet::Aiv({"grid", WaitForTheWholeGrid}), TaskArgs().AddOutputExisting(out), 3);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (g_sync_started.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_EQ(g_sync_started.load(), 3);
  g_blocker_released = true;
  rt.WaitAll();
}

TEST(RuntimeScheduler, ASyncStartGridLargerThanTheClustersIsAValueError) {
  Runtime rt(RuntimeOptions{2});
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {3, 1});
  std::string message = ErrorOf([&] {
    rt.Submit(KernelSet::Aiv({"grid", WaitForTheWholeGrid}), TaskArgs().AddOutputExisting(out), 3, {},
              /*sync_start=*/true);
  });
  EXPECT_NE(message.find("'grid' asks for its 3 blocks to start at once"), std::string::npos) << message;
  EXPECT_NE(message.find("the runtime has 2 clusters; use core_num <= 2 or drop sync_start"), std::string::npos)
      << message;
  rt.WaitAll();
}

std::atomic<int> g_cluster_cores{0};

// A cluster task's three cores run at the same time on one cluster; each
// writes (core type, lane, cluster) into its own column.
void ClusterMember(const int64_t* args, PyptoRtCoreContext* ctx) {
  ++g_cluster_cores;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (g_cluster_cores.load() < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  const auto& out = TensorArg(args, 0);
  int64_t col = ctx->core_type == PYPTO_RT_AIC ? 0 : 1 + ctx->subblock_idx;
  At(out, 0, col) = g_cluster_cores.load() >= 3 ? 1 : -1;
  At(out, 1, col) = ctx->core_type * 10 + ctx->subblock_idx;
  At(out, 2, col) = ctx->cluster_id;
}

TEST(RuntimeScheduler, GroupTaskRunsAicAndBothAivLanesTogetherOnOneCluster) {
  Runtime rt(RuntimeOptions{2});
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {3, 3});
  KernelSet group;
  group.aic = {"mm_aic", ClusterMember};
  group.aiv[0] = {"mm_aiv", ClusterMember};
  group.aiv[1] = {"mm_aiv", ClusterMember};
  g_cluster_cores = 0;
  rt.Submit(group, TaskArgs().AddOutputExisting(out));
  rt.WaitAll();
  for (int c = 0; c < 3; ++c) EXPECT_EQ(At(out, 0, c), 1) << "core " << c << " ran alone";
  EXPECT_EQ(At(out, 1, 0), 0);
  EXPECT_EQ(At(out, 1, 1), 10);
  EXPECT_EQ(At(out, 1, 2), 11);
  EXPECT_EQ(At(out, 2, 0), At(out, 2, 1));
  EXPECT_EQ(At(out, 2, 0), At(out, 2, 2));
}

std::atomic<int> g_ran_after_fault{0};

void FailOnBlockOne(const int64_t*, PyptoRtCoreContext* ctx) {
  if (ctx->block_idx == 1) pypto_rt_kernel_fail(ctx, "TLOAD", "softmax.py", 12, "row 70 is outside the 64-row tensor");
}

void CountRuns(const int64_t*, PyptoRtCoreContext*) { ++g_ran_after_fault; }

void Throws(const int64_t*, PyptoRtCoreContext*) { throw std::runtime_error("bad alloc in kernel"); }

TEST(RuntimeScheduler, AKernelFaultNamesKernelInstructionAndLineAndTheRuntimeStaysUsable) {
  Runtime rt(RuntimeOptions{2});
  Tensor buf = Tensor::Allocate(ir::DataType::FP32, {64, 8});
  g_ran_after_fault = 0;
  rt.Submit(KernelSet::Aiv({"softmax_incore_0", FailOnBlockOne}), TaskArgs().AddOutputExisting(buf), 4);
  for (int i = 0; i < 5; ++i) rt.Submit(KernelSet::Aiv({"consumer", CountRuns}), TaskArgs().AddInOut(buf));
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("softmax.py:12"), std::string::npos) << message;
  EXPECT_NE(message.find("kernel 'softmax_incore_0' (task"), std::string::npos) << message;
  EXPECT_NE(message.find("block 1 of 4) faulted in TLOAD at softmax.py:12: row 70 is outside"), std::string::npos)
      << message;
  EXPECT_EQ(g_ran_after_fault.load(), 0);  // dependents were cancelled

  TaskId ok = rt.Submit(KernelSet::Aiv({"consumer", CountRuns}), TaskArgs().AddInOut(buf));
  rt.WaitAll();
  EXPECT_EQ(g_ran_after_fault.load(), 1);
  EXPECT_EQ(rt.DependenciesOf(ok), std::vector<TaskId>{});
}

TEST(RuntimeScheduler, AKernelExceptionIsAFault) {
  Runtime rt(RuntimeOptions{1});
  rt.Submit(KernelSet::Aic({"thrower", Throws}), TaskArgs());
  std::string message = ErrorOf([&] { rt.WaitAll(); });
  EXPECT_NE(message.find("kernel 'thrower' (task"), std::string::npos) << message;
  EXPECT_NE(message.find("bad alloc in kernel"), std::string::npos) << message;
}

TEST(RuntimeScheduler, WaitWithoutTasksReturnsAndInvalidSubmitsAreValueErrors) {
  Runtime rt(RuntimeOptions{1});
  rt.WaitAll();
  EXPECT_NE(ErrorOf([&] { rt.Submit(KernelSet(), TaskArgs()); }).find("has no kernel"), std::string::npos);
  EXPECT_NE(ErrorOf([&] { rt.Submit(KernelSet::Aiv({"k", CountRuns}), TaskArgs(), 0); }).find("core_num >= 1"),
            std::string::npos);
}

}  // namespace
}  // namespace pypto::runtime

namespace pypto::runtime {
namespace {

// Each writer fills its row with its index + 1; the summer adds every row into
// the last column of row 4. In a MANUAL scope only the join orders them.
void FillRow(const int64_t* args, PyptoRtCoreContext*) {
  const auto& buf = TensorArg(args, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  for (int64_t c = 0; c < buf.shape[1]; ++c) At(buf, args[1], c) = args[1] + 1;
}

void SumRows(const int64_t* args, PyptoRtCoreContext*) {
  const auto& buf = TensorArg(args, 0);
  int64_t total = 0;
  for (int64_t r = 0; r < 4; ++r)
    for (int64_t c = 0; c < buf.shape[1]; ++c) total += At(buf, r, c);
  At(buf, 4, 0) = total;
}

TEST(RuntimeScheduler, AJoinStandsForAllItsDeps) {
  Runtime rt(RuntimeOptions{4});
  for (int run = 0; run < 5; ++run) {
    Tensor buf = Tensor::Allocate(ir::DataType::INT64, {5, 8});
    rt.BeginScope(ScopeMode::Manual);
    std::vector<TaskId> writers;
    for (int64_t r = 0; r < 4; ++r) {
      writers.push_back(rt.Submit(KernelSet::Aiv({"fill_row", FillRow}), TaskArgs().AddInOut(buf).AddScalar(r)));
    }
    TaskId join = rt.SubmitJoin(writers);
    TaskId sum = rt.Submit(KernelSet::Aiv({"sum_rows", SumRows}), TaskArgs().AddInOut(buf), 1, {join});
    rt.EndScope();
    rt.WaitAll();
    EXPECT_EQ(rt.DependenciesOf(join), writers);
    EXPECT_EQ(rt.DependenciesOf(sum), std::vector<TaskId>{join});
    EXPECT_EQ(At(buf, 4, 0), (1 + 2 + 3 + 4) * 8);
  }
}

}  // namespace
}  // namespace pypto::runtime

namespace pypto::runtime {
namespace {

// Records the core state each block saw, by block index.
void RecordState(const int64_t* args, PyptoRtCoreContext* ctx) {
  At(TensorArg(args, 0), ctx->block_idx, 0) = reinterpret_cast<int64_t>(ctx->core_state);
  At(TensorArg(args, 0), ctx->block_idx, 1) = ctx->cluster_id;
}

TEST(RuntimeScheduler, EachCoreSeesItsOwnState) {
  std::vector<int64_t> states(2 * 3);
  RuntimeOptions options(2, [&](int cluster, CoreType type, int lane) -> void* {
    return &states[cluster * 3 + (type == CoreType::AIC ? 0 : 1 + lane)];
  });
  Runtime rt(options);
  Tensor aiv = Tensor::Allocate(ir::DataType::INT64, {6, 2});
  Tensor aic = Tensor::Allocate(ir::DataType::INT64, {6, 2});
  rt.Submit(KernelSet::Aiv({"aiv", RecordState}), TaskArgs().AddOutputExisting(aiv), 6);
  rt.Submit(KernelSet::Aic({"aic", RecordState}), TaskArgs().AddOutputExisting(aic), 6);
  rt.WaitAll();
  for (int b = 0; b < 6; ++b) {
    EXPECT_EQ(At(aiv, b, 0), reinterpret_cast<int64_t>(&states[At(aiv, b, 1) * 3 + 1]));
    EXPECT_EQ(At(aic, b, 0), reinterpret_cast<int64_t>(&states[At(aic, b, 1) * 3]));
  }
}

}  // namespace
}  // namespace pypto::runtime

namespace pypto::runtime {
namespace {

// Each core of a cluster task writes block_idx * 10 + its column.
void WriteCoreCell(const int64_t* args, PyptoRtCoreContext* ctx) {
  int64_t col = ctx->core_type == PYPTO_RT_AIC ? 0 : 1 + ctx->subblock_idx;
  At(TensorArg(args, 0), ctx->block_idx, col) += ctx->block_idx * 10 + col;
}

TEST(RuntimeScheduler, ManyClusterTasksReuseTheLaneThreads) {
  Runtime rt(RuntimeOptions{3});
  KernelSet group;
  group.aic = {"cube", WriteCoreCell};
  group.aiv[0] = {"vec", WriteCoreCell};
  group.aiv[1] = {"vec", WriteCoreCell};
  KernelSet dual;
  dual.aiv[0] = {"vec", WriteCoreCell};
  dual.aiv[1] = {"vec", WriteCoreCell};
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {5, 3});
  for (int i = 0; i < 20; ++i) rt.Submit(i % 2 ? dual : group, TaskArgs().AddInOut(out), 5);
  rt.WaitAll();
  for (int b = 0; b < 5; ++b) {
    EXPECT_EQ(At(out, b, 0), 10 * (b * 10));
    for (int c = 1; c < 3; ++c) EXPECT_EQ(At(out, b, c), 20 * (b * 10 + c));
  }
}

}  // namespace
}  // namespace pypto::runtime

namespace pypto::runtime {
namespace {

std::atomic<bool> g_ran{false};
std::thread::id g_ran_on;

void NoteThread(const int64_t*, PyptoRtCoreContext*) {
  g_ran_on = std::this_thread::get_id();
  g_ran = true;
}

TEST(RuntimeScheduler, ALoneTaskRunsOnTheThreadThatWaits) {
  Runtime rt(RuntimeOptions{2});
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {1, 1});
  for (int run = 0; run < 20; ++run) {
    g_ran = false;
    rt.Submit(KernelSet::Aiv({"note", NoteThread}), TaskArgs().AddOutputExisting(out));
    rt.WaitAll();
    ASSERT_TRUE(g_ran);
    EXPECT_EQ(g_ran_on, std::this_thread::get_id()) << "run " << run;
  }
}

TEST(RuntimeScheduler, TheNextSubmitStartsAWaitingTaskOnAWorker) {
  Runtime rt(RuntimeOptions{2});
  Tensor a = Tensor::Allocate(ir::DataType::INT64, {1, 1});
  Tensor b = Tensor::Allocate(ir::DataType::INT64, {1, 1});
  g_ran = false;
  rt.Submit(KernelSet::Aiv({"note", NoteThread}), TaskArgs().AddOutputExisting(a));
  // Depends on the first (it reads a), so it is not ready itself.
  rt.Submit(KernelSet::Aiv({"after", [](const int64_t*, PyptoRtCoreContext*) {}}),
            TaskArgs().AddInput(a).AddOutputExisting(b));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!g_ran && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_TRUE(g_ran) << "the first task did not start before WaitAll";
  EXPECT_NE(g_ran_on, std::this_thread::get_id());
  rt.WaitAll();
}

TEST(RuntimeScheduler, ATaskLeftWaitingRunsBeforeTheRuntimeIsDestroyed) {
  Tensor out = Tensor::Allocate(ir::DataType::INT64, {1, 1});
  g_ran = false;
  {
    Runtime rt(RuntimeOptions{1});
    rt.Submit(KernelSet::Aiv({"note", NoteThread}), TaskArgs().AddOutputExisting(out));
  }
  EXPECT_TRUE(g_ran);
}

}  // namespace
}  // namespace pypto::runtime
