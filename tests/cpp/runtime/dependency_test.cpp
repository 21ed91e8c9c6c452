// How the runtime orders tasks: explicit deps plus overlapping regions where
// at least one side writes. Dependencies are recorded at submit, so these
// tests read them back no matter how fast the tasks ran.
#include <atomic>
#include <thread>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using testing::ErrorOf;
using Deps = std::vector<TaskId>;

void Nop(const int64_t*, PyptoRtCoreContext*) {}

class RuntimeDeps : public ::testing::Test {
 protected:
  TaskId Run(const TaskArgs& args, const Deps& deps = {}) { return rt.Submit(KernelSet::Aiv({"nop", Nop}), args, 1, deps); }

  Runtime rt{RuntimeOptions{2}};
  Tensor buf = Tensor::Allocate(ir::DataType::FP32, {8, 16});
  Tensor other = Tensor::Allocate(ir::DataType::FP32, {8, 16});
};

TEST_F(RuntimeDeps, ReadAfterWriteWaitsForTheWriter) {
  TaskId w = Run(TaskArgs().AddOutputExisting(buf));
  TaskId r = Run(TaskArgs().AddInput(buf).AddOutputExisting(other));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(w), Deps{});
  EXPECT_EQ(rt.DependenciesOf(r), Deps{w});
}

TEST_F(RuntimeDeps, WriteAfterReadWaitsForTheReaders) {
  TaskId r1 = Run(TaskArgs().AddInput(buf.View({0, 0}, {4, 16})));
  TaskId r2 = Run(TaskArgs().AddInput(buf.View({4, 0}, {4, 16})));
  TaskId w = Run(TaskArgs().AddOutput(buf));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(r2), Deps{});  // two readers never wait for each other
  EXPECT_EQ(rt.DependenciesOf(w), (Deps{r1, r2}));
}

TEST_F(RuntimeDeps, WriteAfterWriteWaitsForTheEarlierWriter) {
  TaskId w1 = Run(TaskArgs().AddInOut(buf.View({2, 0}, {2, 16})));
  TaskId w2 = Run(TaskArgs().AddOutputExisting(buf.View({3, 4}, {4, 4})));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(w2), Deps{w1});
}

TEST_F(RuntimeDeps, DisjointSlicesRunIndependently) {
  TaskId left = Run(TaskArgs().AddInOut(buf.View({0, 0}, {8, 8})));
  TaskId right = Run(TaskArgs().AddInOut(buf.View({0, 8}, {8, 8})));
  TaskId elsewhere = Run(TaskArgs().AddInput(other).AddOutput(buf.View({0, 0}, {0, 16})));
  TaskId reads_both = Run(TaskArgs().AddInput(buf.View({7, 7}, {1, 2})));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(right), Deps{});
  EXPECT_EQ(rt.DependenciesOf(elsewhere), Deps{});
  EXPECT_EQ(rt.DependenciesOf(reads_both), (Deps{left, right}));
}

TEST_F(RuntimeDeps, ACoveringWriteStandsInForTheAccessesBeforeIt) {
  TaskId r = Run(TaskArgs().AddInput(buf.View({0, 0}, {2, 2})));
  TaskId w = Run(TaskArgs().AddOutputExisting(buf));
  TaskId r2 = Run(TaskArgs().AddInput(buf.View({0, 0}, {1, 1})));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(w), Deps{r});
  EXPECT_EQ(rt.DependenciesOf(r2), Deps{w});  // r is reached through w
}

TEST_F(RuntimeDeps, NoDepAndScalarArgumentsOrderNothing) {
  TaskId w = Run(TaskArgs().AddOutputExisting(buf));
  TaskId n = Run(TaskArgs().AddNoDep(buf).AddScalar(7));
  TaskId w2 = Run(TaskArgs().AddOutputExisting(buf));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(n), Deps{});
  EXPECT_EQ(rt.DependenciesOf(w2), Deps{w});
}

TEST_F(RuntimeDeps, ExplicitDepsAddToDerivedOnes) {
  TaskId a = Run(TaskArgs().AddOutputExisting(other));
  TaskId b = Run(TaskArgs().AddOutputExisting(buf));
  TaskId c = Run(TaskArgs().AddInput(buf), {a, a});
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(c), (Deps{a, b}));
}

TEST_F(RuntimeDeps, ManualScopeUsesExplicitDepsOnly) {
  TaskId before = Run(TaskArgs().AddOutputExisting(buf));
  rt.BeginScope(ScopeMode::Manual);
  TaskId m1 = Run(TaskArgs().AddInOut(buf));
  TaskId m2 = Run(TaskArgs().AddInOut(buf), {m1});
  rt.EndScope();
  TaskId after = Run(TaskArgs().AddInput(buf.View({0, 0}, {1, 1})));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(m1), Deps{});
  EXPECT_EQ(rt.DependenciesOf(m2), Deps{m1});
  // What the scope wrote still orders the tasks after it.
  EXPECT_EQ(rt.DependenciesOf(after), (Deps{before, m1, m2}));
}

TEST_F(RuntimeDeps, ParallelScopeIterationsAreIndependentButOrderedWithinAndAgainstTheOutside) {
  TaskId before = Run(TaskArgs().AddOutputExisting(buf));
  rt.BeginScope(ScopeMode::Parallel);
  rt.NextIteration();
  TaskId i0_first = Run(TaskArgs().AddOutputExisting(buf));
  TaskId i0_second = Run(TaskArgs().AddInOut(buf));
  rt.NextIteration();
  TaskId i1 = Run(TaskArgs().AddInput(buf).AddOutputExisting(buf));
  rt.BeginScope(ScopeMode::Parallel);  // a nested loop in iteration 1
  rt.NextIteration();
  TaskId inner0 = Run(TaskArgs().AddInOut(buf));
  rt.NextIteration();
  TaskId inner1 = Run(TaskArgs().AddInOut(buf));
  rt.EndScope();
  rt.EndScope();
  TaskId after = Run(TaskArgs().AddInput(buf));
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(i0_first), Deps{before});
  EXPECT_EQ(rt.DependenciesOf(i0_second), (Deps{before, i0_first}));  // same iteration: ordered
  EXPECT_EQ(rt.DependenciesOf(i1), Deps{before});
  EXPECT_EQ(rt.DependenciesOf(inner0), (Deps{before, i1}));  // iteration 1 of the outer loop
  EXPECT_EQ(rt.DependenciesOf(inner1), (Deps{before, i1}));
  // Every iteration's write survives to order what comes after the loop (and
  // the write before it, which no single iteration stands in for).
  EXPECT_EQ(rt.DependenciesOf(after), (Deps{before, i0_first, i0_second, i1, inner0, inner1}));
  EXPECT_NE(ErrorOf([&] { rt.NextIteration(); }).find("no PARALLEL scope is open"), std::string::npos);
}

// Far more accesses than the history keeps before pruning, none of them
// finished (the only worker is held in the first task): grouping by
// iteration and pruning must not lose one.
TEST(RuntimeDepsLongLoop, ATaskAfterALongParallelLoopWaitsForEveryUnfinishedIteration) {
  static std::atomic<bool> released{false};
  released = false;
  auto hold = [](const int64_t*, PyptoRtCoreContext*) {
    while (!released) std::this_thread::yield();
  };
  Runtime rt{RuntimeOptions{1}};
  constexpr int64_t kRows = 600;
  Tensor out = Tensor::Allocate(ir::DataType::FP32, {kRows, 4});
  Tensor flag = Tensor::Allocate(ir::DataType::FP32, {1});
  TaskId held = rt.Submit(KernelSet::Aiv({"hold", hold}), TaskArgs().AddOutputExisting(flag));
  Deps iterations;
  rt.BeginScope(ScopeMode::Parallel);
  for (int64_t r = 0; r < kRows; ++r) {
    rt.NextIteration();
    iterations.push_back(rt.Submit(KernelSet::Aiv({"nop", Nop}), TaskArgs().AddOutputExisting(out.View({r, 0}, {1, 4}))));
  }
  rt.EndScope();
  TaskId after = rt.Submit(KernelSet::Aiv({"nop", Nop}), TaskArgs().AddInput(out).AddInput(flag));
  released = true;
  rt.WaitAll();
  Deps expected = iterations;
  expected.insert(expected.begin(), held);
  EXPECT_EQ(rt.DependenciesOf(after), expected);
}

TEST_F(RuntimeDeps, AParallelLoopInsideAManualScopeDerivesNothing) {
  TaskId before = Run(TaskArgs().AddOutputExisting(buf));
  rt.BeginScope(ScopeMode::Manual);
  rt.BeginScope(ScopeMode::Parallel);
  TaskId inside = Run(TaskArgs().AddInOut(buf));
  rt.EndScope();
  rt.EndScope();
  rt.WaitAll();
  EXPECT_EQ(rt.DependenciesOf(inside), Deps{});
  (void)before;
}

TEST_F(RuntimeDeps, ScopeMisuseIsAValueError) {
  rt.BeginScope(ScopeMode::Manual);
  EXPECT_NE(ErrorOf([&] { rt.BeginScope(ScopeMode::Auto); }).find("inside a MANUAL scope"), std::string::npos);
  rt.EndScope();
  EXPECT_NE(ErrorOf([&] { rt.EndScope(); }).find("no scope is open"), std::string::npos);
  rt.BeginScope(ScopeMode::Auto);
  Run(TaskArgs().AddInput(buf));
  EXPECT_NE(ErrorOf([&] { rt.WaitAll(); }).find("1 scope(s) were still open"), std::string::npos);
  Run(TaskArgs().AddInput(buf));  // the next run starts clean
  rt.WaitAll();
}

TEST_F(RuntimeDeps, UnknownTaskIdsAreValueErrorsAndOldRunsAreDone) {
  TaskId a = Run(TaskArgs().AddOutputExisting(buf));
  EXPECT_NE(ErrorOf([&] { Run(TaskArgs(), {a + 5}); }).find("depends on task " + std::to_string(a + 5) +
                                                         ", which was never submitted"),
            std::string::npos);
  rt.WaitAll();
  TaskId b = Run(TaskArgs().AddInput(buf), {a});
  rt.WaitAll();
  EXPECT_GT(b, a);
  EXPECT_EQ(rt.DependenciesOf(b), Deps{});  // a finished in the previous run
}

}  // namespace
}  // namespace pypto::runtime
