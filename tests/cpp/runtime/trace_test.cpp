// Traced runs (Runtime::SetTracing, LastRunTrace): every block of every task
// recorded once per core it ran on, in order in time, on a real core; the
// dependencies and their causes as the runtime derived them; nothing
// recorded while tracing is off.
#include <array>
#include <atomic>
#include <cstring>
#include <set>
#include <thread>
#include <tuple>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

void Busy(const int64_t*, PyptoRtCoreContext*) { std::this_thread::yield(); }

constexpr int kClusters = 3;

// A parallel loop of 4 two-block tasks writing one row each, a reader of
// the whole buffer after it, a cluster task with both AIV lanes ordered by
// an explicit dep, and a join.
struct Program {
  std::vector<TaskId> rows;
  TaskId reader = 0;
  TaskId group = 0;
  TaskId join = 0;
  Tensor buf = Tensor::Allocate(ir::DataType::INT64, {4, 8});
  Tensor other = Tensor::Allocate(ir::DataType::FP32, {2, 2});

  void Submit(Runtime& rt) {
    rt.BeginScope(ScopeMode::Parallel);
    for (int64_t r = 0; r < 4; ++r) {
      if (r > 0) rt.NextIteration();
      Tensor row = buf.View({r, 0}, {1, 8});
      rows.push_back(rt.Submit(KernelSet::Aiv({"fill_row", Busy}), TaskArgs().AddOutputExisting(row).AddScalar(r), 2));
    }
    rt.EndScope();
    reader = rt.Submit(KernelSet::Aiv({"sum", Busy}), TaskArgs().AddInput(buf));
    KernelSet cluster;
    cluster.aic = {"mm_aic", Busy};
    cluster.aiv[0] = {"mm_aiv", Busy};
    cluster.aiv[1] = {"mm_aiv", Busy};
    group = rt.Submit(cluster, TaskArgs().AddOutput(other), 1, {reader});
    join = rt.SubmitJoin({group});
    rt.WaitAll();
  }
};

const TaskTrace& TaskOf(const RunTrace& trace, TaskId id) {
  for (const auto& t : trace.tasks) {
    if (t.id == id) return t;
  }
  ADD_FAILURE() << "task " << id << " is not in the trace";
  return trace.tasks.front();
}

TEST(RuntimeTrace, EveryBlockIsRecordedOncePerCoreInTimeOrderOnAValidCore) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Program p;
  p.Submit(rt);
  RunTrace trace = rt.LastRunTrace();

  EXPECT_EQ(trace.clusters, kClusters);
  ASSERT_EQ(trace.tasks.size(), 7u);
  for (const TaskTrace& t : trace.tasks) {
    size_t cores = t.kernels.size();
    EXPECT_EQ(t.spans.size(), static_cast<size_t>(t.core_num) * cores) << t.kernel;
    std::set<std::tuple<int32_t, CoreType, int32_t>> seen;
    for (const CoreSpan& s : t.spans) {
      EXPECT_TRUE(seen.insert({s.block_idx, s.core_type, s.lane}).second) << t.kernel << " block " << s.block_idx;
      EXPECT_GE(s.block_idx, 0);
      EXPECT_LT(s.block_idx, t.core_num);
      EXPECT_GE(s.cluster_id, 0);
      EXPECT_LT(s.cluster_id, kClusters);
      EXPECT_TRUE(s.lane == 0 || (s.core_type == CoreType::AIV && s.lane == 1));
      EXPECT_GE(s.dispatch_ns, t.ready_ns);
      EXPECT_LE(s.dispatch_ns, s.start_ns);
      EXPECT_LE(s.start_ns, s.end_ns);
      EXPECT_LE(s.end_ns, s.retire_ns);
    }
    EXPECT_LE(0, t.submit_begin_ns);
    EXPECT_LE(t.submit_begin_ns, t.submit_end_ns);
  }
  // Times count from the run's first traced event: here the parallel scope opened before the first submit.
  ASSERT_FALSE(trace.scopes.empty());
  EXPECT_EQ(trace.scopes.front().begin_ns, 0);
  EXPECT_LE(trace.scopes.front().end_ns, TaskOf(trace, p.reader).submit_begin_ns);
  EXPECT_LE(0, trace.tasks.front().submit_begin_ns);
  const TaskTrace& group = TaskOf(trace, p.group);
  EXPECT_EQ(group.kernels, (std::vector<std::string>{"mm_aic", "mm_aiv", "mm_aiv"}));
  EXPECT_EQ(group.spans[0].core_type, CoreType::AIC);
  EXPECT_EQ(group.spans[2].lane, 1);
  const TaskTrace& join = TaskOf(trace, p.join);
  EXPECT_EQ(join.kernel, "join");
  EXPECT_TRUE(join.spans.empty());
  EXPECT_EQ(join.ready_ns, -1);
}

TEST(RuntimeTrace, DependenciesAreTheRuntimesWithTheirCauses) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Program p;
  p.Submit(rt);
  RunTrace trace = rt.LastRunTrace();

  for (const TaskTrace& t : trace.tasks) EXPECT_EQ(t.deps, rt.DependenciesOf(t.id)) << t.kernel;
  const TaskTrace& reader = TaskOf(trace, p.reader);
  EXPECT_EQ(reader.deps, p.rows);
  EXPECT_TRUE(reader.explicit_deps.empty());
  ASSERT_EQ(reader.overlaps.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(reader.overlaps[i].pred, p.rows[i]);
    EXPECT_EQ(reader.overlaps[i].arg, 0);
    EXPECT_EQ(reader.overlaps[i].pred_arg, 0);
  }
  const TaskTrace& group = TaskOf(trace, p.group);
  EXPECT_EQ(group.explicit_deps, std::vector<TaskId>{p.reader});
  EXPECT_TRUE(group.overlaps.empty());
  // Ready only after what it waited for retired.
  EXPECT_GE(group.ready_ns, reader.spans.back().end_ns);
}

TEST(RuntimeTrace, TensorsAreTheRootsTheArgumentsView) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Program p;
  p.Submit(rt);
  RunTrace trace = rt.LastRunTrace();

  ASSERT_EQ(trace.tensors.size(), 2u);
  EXPECT_EQ(trace.tensors[0].buffer_addr, reinterpret_cast<uintptr_t>(p.buf.data()));
  EXPECT_EQ(trace.tensors[0].shape, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(trace.tensors[0].dtype, ir::DataType::INT64);
  EXPECT_EQ(trace.tensors[1].shape, (std::vector<int64_t>{2, 2}));
  const ArgTrace& row2 = TaskOf(trace, p.rows[2]).args[0];
  EXPECT_EQ(row2.tensor_id, 0);
  EXPECT_EQ(row2.direction, ArgDirection::OutputExisting);
  EXPECT_EQ(row2.offsets, (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(row2.shape, (std::vector<int64_t>{1, 8}));
  const ArgTrace& scalar = TaskOf(trace, p.rows[2]).args[1];
  EXPECT_EQ(scalar.tensor_id, -1);
  EXPECT_EQ(scalar.scalar, 2);
}

TEST(RuntimeTrace, NothingIsRecordedWhileTracingIsOff) {
  Runtime rt(RuntimeOptions{kClusters});
  Program untraced;
  untraced.Submit(rt);
  EXPECT_TRUE(rt.LastRunTrace().tasks.empty());

  rt.SetTracing(true);
  Program traced;
  traced.Submit(rt);
  rt.SetTracing(false);
  RunTrace trace = rt.LastRunTrace();
  ASSERT_EQ(trace.tasks.size(), 7u);
  EXPECT_EQ(trace.tasks.front().id, traced.rows.front());  // the last run only

  Program after;
  after.Submit(rt);
  EXPECT_TRUE(rt.LastRunTrace().tasks.empty());
}

// Counting hooks that give each core state (an int tagging the core) a
// count of the kernels begun on it, and report it as the kernel's cycles.
struct CountingCores {
  std::array<std::atomic<int>, kClusters * 3> begun{};
  std::array<int, kClusters * 3> tags{};

  RuntimeOptions Options() {
    for (int i = 0; i < kClusters * 3; ++i) tags[i] = i;
    RuntimeOptions options(kClusters, [this](int cluster, CoreType type, int lane) -> void* {
      return &tags[cluster * 3 + (type == CoreType::AIC ? 0 : 1 + lane)];
    });
    options.begin_counting = [this](void* state) { ++begun[*static_cast<int*>(state)]; };
    options.end_counting = [this](void* state, CoreCounters& out) {
      out.measured = true;
      out.cycles = 1000 + *static_cast<int*>(state);
    };
    return options;
  }
  int Total() const {
    int total = 0;
    for (const auto& b : begun) total += b.load();
    return total;
  }
};

TEST(RuntimeTrace, TracedKernelsAreCountedOnTheCoreThatRanThem) {
  CountingCores cores;
  Runtime rt(cores.Options());
  Program untraced;
  untraced.Submit(rt);
  EXPECT_EQ(cores.Total(), 0);  // counting is for traced runs only

  rt.SetTracing(true);
  Program traced;
  traced.Submit(rt);
  RunTrace trace = rt.LastRunTrace();
  int spans = 0;
  for (const TaskTrace& t : trace.tasks) {
    for (const CoreSpan& s : t.spans) {
      ++spans;
      int slot = s.core_type == CoreType::AIC ? 0 : 1 + s.lane;
      EXPECT_TRUE(s.counters.measured) << t.kernel;
      EXPECT_EQ(s.counters.cycles, 1000 + s.cluster_id * 3 + slot) << t.kernel << " block " << s.block_idx;
    }
  }
  EXPECT_EQ(spans, 4 * 2 + 1 + 3);
  EXPECT_EQ(cores.Total(), spans);
}

TEST(RuntimeTrace, SpansAreUnmeasuredWithoutCountingHooks) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Program p;
  p.Submit(rt);
  for (const TaskTrace& t : rt.LastRunTrace().tasks) {
    for (const CoreSpan& s : t.spans) EXPECT_FALSE(s.counters.measured) << t.kernel;
  }
}

TEST(RuntimeTrace, AScopeRecordsItsTasksEdgesPeaksAndAllocations) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Program p;
  p.Submit(rt);  // one parallel scope of 4 iterations, one task each; the rest outside any scope
  RunTrace trace = rt.LastRunTrace();
  ASSERT_EQ(trace.scopes.size(), 1u);
  const ScopeTrace& loop = trace.scopes[0];
  EXPECT_EQ(loop.mode, "parallel");
  EXPECT_EQ(loop.depth, 0);
  EXPECT_EQ(loop.parent_id, -1);
  EXPECT_EQ(loop.iterations, 4);
  EXPECT_EQ(loop.tasks, 4);
  EXPECT_EQ(loop.dep_edges, 0);  // the iterations write disjoint rows
  EXPECT_GE(loop.peak_tasks_in_flight, 1);
  EXPECT_LE(loop.peak_tasks_in_flight, 4);
  EXPECT_EQ(loop.peak_tensormap_entries, 4);  // one output per task, none finished-and-pruned yet
  EXPECT_LE(loop.begin_ns, loop.end_ns);
}

TEST(RuntimeTrace, NestedScopesCountTheirInnerTasksAndTheHeapOpenAroundThem) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  Tensor buf = Tensor::Allocate(ir::DataType::FP32, {8});
  rt.BeginScope(ScopeMode::Auto);
  rt.RecordAllocation(1024);
  rt.Submit(KernelSet::Aiv({"write", Busy}), TaskArgs().AddOutputExisting(buf));
  rt.BeginScope(ScopeMode::Manual);
  rt.RecordAllocation(256);
  rt.Submit(KernelSet::Aiv({"read", Busy}), TaskArgs().AddInput(buf));
  rt.EndScope();
  rt.Submit(KernelSet::Aiv({"read_again", Busy}), TaskArgs().AddInput(buf));
  rt.EndScope();
  rt.WaitAll();
  RunTrace trace = rt.LastRunTrace();
  ASSERT_EQ(trace.scopes.size(), 2u);
  const ScopeTrace& outer = trace.scopes[0];
  const ScopeTrace& inner = trace.scopes[1];
  EXPECT_EQ(outer.mode, "auto");
  EXPECT_EQ(inner.mode, "manual");
  EXPECT_EQ(inner.parent_id, outer.scope_id);
  EXPECT_EQ(inner.depth, 1);
  EXPECT_EQ(outer.tasks, 3);
  EXPECT_EQ(inner.tasks, 1);
  EXPECT_EQ(outer.heap_bytes, 1024 + 256);
  EXPECT_EQ(inner.heap_bytes, 256);
  EXPECT_EQ(inner.dep_edges, 0);  // a manual scope derives no dependencies
  EXPECT_EQ(outer.dep_edges, 1);  // read_again after write
  EXPECT_LE(outer.begin_ns, inner.begin_ns);
  EXPECT_LE(inner.end_ns, outer.end_ns);

  Program next;  // the next run starts its scopes afresh
  next.Submit(rt);
  EXPECT_EQ(rt.LastRunTrace().scopes.size(), 1u);
}

// A kernel that adds 1 to every element of its FP32 output (argument 1).
void AddOne(const int64_t* args, PyptoRtCoreContext*) {
  const auto& out = *reinterpret_cast<const PyptoRtTensorDesc*>(static_cast<intptr_t>(args[1]));
  auto* data = static_cast<float*>(out.data);
  int64_t n = 1;
  for (int d = 0; d < out.ndim; ++d) n *= out.shape[d];
  for (int64_t i = 0; i < n; ++i) data[i] += 1.0f;
}

std::vector<float> Floats(const ArgDump& dump) {
  std::vector<float> out(dump.bytes.size() / sizeof(float));
  std::memcpy(out.data(), dump.bytes.data(), dump.bytes.size());
  return out;
}

TEST(RuntimeTrace, ArgsDumpCopiesInputsBeforeAndOutputsAfterTheTaskRuns) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  rt.SetArgsDump(ArgsDump::All);
  Tensor in = Tensor::Allocate(ir::DataType::FP32, {4});
  Tensor acc = Tensor::Allocate(ir::DataType::FP32, {4});
  static_cast<float*>(in.data())[0] = 7.0f;
  rt.Submit(KernelSet::Aiv({"add_one", AddOne}), TaskArgs().AddInput(in).AddInOut(acc));
  rt.Submit(KernelSet::Aiv({"add_one", AddOne}), TaskArgs().AddInput(in).AddInOut(acc));
  rt.WaitAll();
  RunTrace trace = rt.LastRunTrace();
  ASSERT_EQ(trace.tasks.size(), 2u);
  for (int i = 0; i < 2; ++i) {
    const auto& dumps = trace.tasks[i].dumps;
    ASSERT_EQ(dumps.size(), 3u);  // in before, acc before, acc after
    EXPECT_EQ(Floats(dumps[0]), (std::vector<float>{7, 0, 0, 0}));
    EXPECT_EQ(dumps[1].arg, 1);
    EXPECT_FALSE(dumps[1].after);
    EXPECT_EQ(Floats(dumps[1]), std::vector<float>(4, static_cast<float>(i)));
    EXPECT_TRUE(dumps[2].after);
    EXPECT_EQ(Floats(dumps[2]), std::vector<float>(4, static_cast<float>(i + 1)));
  }
}

TEST(RuntimeTrace, TaggedArgsDumpKeepsOnlyArgumentsViewingATaggedTensor) {
  Runtime rt(RuntimeOptions{kClusters});
  rt.SetTracing(true);
  rt.SetArgsDump(ArgsDump::Tagged);
  Tensor tagged = Tensor::Allocate(ir::DataType::FP32, {2, 4});
  Tensor other = Tensor::Allocate(ir::DataType::FP32, {4});
  rt.TagForDump(tagged);
  rt.Submit(KernelSet::Aiv({"add_one", AddOne}), TaskArgs().AddInput(other).AddOutputExisting(tagged.View({1, 0}, {1, 4})));
  rt.Submit(KernelSet::Aiv({"add_one", AddOne}), TaskArgs().AddInput(tagged).AddOutputExisting(other));
  rt.WaitAll();
  RunTrace trace = rt.LastRunTrace();
  ASSERT_EQ(trace.tasks.size(), 2u);
  ASSERT_EQ(trace.tasks[0].dumps.size(), 1u);
  EXPECT_EQ(trace.tasks[0].dumps[0].arg, 1);
  EXPECT_EQ(Floats(trace.tasks[0].dumps[0]), std::vector<float>(4, 1.0f));  // the window's row only
  ASSERT_EQ(trace.tasks[1].dumps.size(), 1u);
  EXPECT_EQ(Floats(trace.tasks[1].dumps[0]), (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1}));

  rt.SetArgsDump(ArgsDump::Off);
  rt.Submit(KernelSet::Aiv({"add_one", AddOne}), TaskArgs().AddInput(other).AddOutputExisting(tagged));
  rt.WaitAll();
  EXPECT_TRUE(rt.LastRunTrace().tasks[0].dumps.empty());
}

}  // namespace
}  // namespace pypto::runtime
