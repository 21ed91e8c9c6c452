// Generated orchestration modules run: parsed back from their text, linked
// under ORC with kernels, driven on a runtime; the numbers and the task
// graph are what the program says.
#include <gtest/gtest.h>

#include <cstring>

#include "backend_host/programs.h"
#include "pypto/jit/cxx_compiler.h"

namespace pypto::host::testing {
namespace {

float Index(int64_t i) { return static_cast<float>(i); }

void ExpectAll(const runtime::Tensor& t, const std::function<float(int64_t, int64_t)>& expected) {
  for (int64_t r = 0; r < t.shape()[0]; ++r) {
    for (int64_t c = 0; c < t.shape()[1]; ++c) {
      ASSERT_FLOAT_EQ(At(t, r, c), expected(r, c)) << "at [" << r << ", " << c << "]";
    }
  }
}

float Value(int64_t r, int64_t c) { return static_cast<float>(r * kCols + c); }

TEST(HostRun, HelloWorldAddsTwoTensors) {
  HostRun run(HelloWorld());
  run.Kernel("add", AddKernel);
  auto a = Filled(kRows, kCols, Index), b = Filled(kRows, kCols, [](int64_t) { return 100.0f; });
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, a}, {1, b}, {2, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return Value(r, c) + 100; });
  ASSERT_EQ(run.results().count(0), 1u);
  EXPECT_EQ(run.results().at(0).data(), out.data());
}

TEST(HostRun, AKernelCompiledWithClangRunsTheSameProgram) {
  HostRun run(HelloWorld());
  jit::CxxCompiler compiler(std::nullopt);
  jit::CompileOptions options;
  options.name = "kernels/aiv/add.cpp";
  options.opt_level = 1;
  options.include_dirs = {PYPTO_TEST_SOURCE_DIR "/core/include"};
  run.session().AddObject(compiler.Compile(R"(
#include "pypto/runtime/c_api.h"
extern "C" void pypto_kernel_add(const int64_t* args, PyptoRtCoreContext*) {
  const PyptoRtTensorDesc* a = (const PyptoRtTensorDesc*)args[0];
  const PyptoRtTensorDesc* b = (const PyptoRtTensorDesc*)args[1];
  const PyptoRtTensorDesc* out = (const PyptoRtTensorDesc*)args[2];
  for (int64_t i = 0; i < out->shape[0] * out->shape[1]; ++i)
    ((float*)out->data)[i] = ((const float*)a->data)[i] + ((const float*)b->data)[i];
}
)",
                                           options));
  auto a = Filled(kRows, kCols, Index), b = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, a}, {1, b}, {2, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return 2 * Value(r, c); });
}

TEST(HostRun, ALoopSubmitsOneTaskPerIterationOrderedByItsInOut) {
  HostRun run(ChunkedLoop());
  run.Kernel("add_rows", AddRowsKernel);
  auto a = Filled(kRows, kCols, Index), b = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return -1.0f; });
  ASSERT_EQ(run.Run({{0, a}, {1, b}, {2, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return 2 * Value(r, c); });
  // Tasks 0..3; each writes all of `out` as far as the runtime knows (InOut).
  EXPECT_EQ(run.runtime().DependenciesOf(0), std::vector<runtime::TaskId>{});
  for (runtime::TaskId t = 1; t < 4; ++t) EXPECT_EQ(run.runtime().DependenciesOf(t), std::vector<runtime::TaskId>{t - 1});
}

TEST(HostRun, AParallelLoopsIterationsRunInAParallelScopeUnorderedAmongThemselves) {
  HostRun run(ChunkedLoop(ForKind::Parallel));
  run.Kernel("add_rows", AddRowsKernel);
  auto a = Filled(kRows, kCols, Index), b = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return -1.0f; });
  ASSERT_EQ(run.Run({{0, a}, {1, b}, {2, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return 2 * Value(r, c); });
  for (runtime::TaskId t = 0; t < 4; ++t) EXPECT_EQ(run.runtime().DependenciesOf(t), std::vector<runtime::TaskId>{});
  EXPECT_NE(GeneratedText(ChunkedLoop(ForKind::Parallel)).find("@pypto_rt_scope_begin(ptr %ctx, i32 2)"),
            std::string::npos);
}

TEST(HostRun, ACreatedIntermediateAndAnExplicitDepOrderTheSecondTask) {
  HostRun run(TaskGraph());
  run.Kernel("scale", ScaleKernel);
  run.Kernel("add", AddKernel);
  auto x = Filled(kRows, kCols, Index);
  auto y = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, x}, {1, y}}), 0) << run.error();
  ExpectAll(y, [](int64_t r, int64_t c) { return 3 * Value(r, c); });
  EXPECT_EQ(run.runtime().DependenciesOf(1), std::vector<runtime::TaskId>{0});
}

TEST(HostRun, AManualScopeOrdersOnlyByDepsAndAJoinStandsForTaskIdArrays) {
  HostRun run(ManualJoin());
  run.Kernel("scale", ScaleKernel);
  run.Kernel("add", AddKernel);
  auto x = Filled(kRows, kCols, Index);
  auto zeros = [](int64_t) { return 0.0f; };
  auto y = Filled(kRows, kCols, zeros), z = Filled(kRows, kCols, zeros), out = Filled(kRows, kCols, zeros);
  ASSERT_EQ(run.Run({{0, x}, {1, y}, {2, z}, {3, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return 4 * Value(r, c); });
  // t0 = 0, t1 = 1, the join = 2, the add = 3 waits for the join only.
  EXPECT_EQ(run.runtime().DependenciesOf(2), (std::vector<runtime::TaskId>{0, 1}));
  EXPECT_EQ(run.runtime().DependenciesOf(3), std::vector<runtime::TaskId>{2});
}

TEST(HostRun, AFreshTensorComesBackAsTheResult) {
  HostRun run(FreshResult());
  run.Kernel("scale", ScaleKernel);
  auto x = Filled(kRows, kCols, Index);
  ASSERT_EQ(run.Run({{0, x}}), 0) << run.error();
  auto results = run.results();
  ASSERT_EQ(results.count(0), 1u);
  EXPECT_EQ(results.at(0).shape(), (pypto::runtime::Dims{kRows, kCols}));
  ExpectAll(results.at(0), [](int64_t r, int64_t c) { return 2 * Value(r, c); });
}

TEST(HostRun, SlicesAreRuntimeViews) {
  HostRun run(Views());
  run.Kernel("scale", ScaleKernel);
  auto x = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, x}, {1, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return r < 4 ? 2 * Value(r + 4, c) : 0.0f; });
}

TEST(HostRun, AnSpmdCallRunsOneTaskOfCoreNumBlocks) {
  HostRun run(Spmd());
  run.Kernel("rows", RowsKernel);
  auto x = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, x}, {1, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return 2 * Value(r, c); });
  EXPECT_EQ(run.runtime().BlocksOf(0).size(), 4u);
}

TEST(HostRun, AGroupCallRunsItsAicAndAivKernelsAsOneClusterTask) {
  HostRun run(Group());
  run.Kernel("top_half", TopHalfKernel);
  run.Kernel("bottom_half", BottomHalfKernel);
  auto x = Filled(kRows, kCols, Index);
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, x}, {1, out}}), 0) << run.error();
  ExpectAll(out, [](int64_t r, int64_t c) { return (r < kRows / 2 ? 2 : 3) * Value(r, c); });
  EXPECT_EQ(run.runtime().BlocksOf(0).size(), 1u);
}

float FillValueFor(int64_t n) {
  HostRun run(IfElse());
  run.Kernel("fill", FillKernel);
  auto out = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  EXPECT_EQ(run.Run({{0, out}}, {{1, n}}), 0) << run.error();
  return At(out, kRows - 1, kCols - 1);
}

TEST(HostRun, IfElseYieldsAPhiAndScalarsKeepPythonSemantics) {
  EXPECT_FLOAT_EQ(FillValueFor(3), 30.5f);
  // (0 - 7) // 2 rounds toward negative infinity: -4.
  EXPECT_FLOAT_EQ(FillValueFor(0), -3.5f);
}

TEST(HostRun, AWhileLoopCarriesAScalarAndATensor) {
  HostRun run(WhileLoop());
  run.Kernel("bump", BumpKernel);
  auto t = Filled(kRows, kCols, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, t}}, {{1, 5}}), 0) << run.error();
  ExpectAll(t, [](int64_t, int64_t) { return 5.0f; });
  EXPECT_EQ(run.runtime().DependenciesOf(4), std::vector<runtime::TaskId>{3});
}

TEST(HostRun, AnUnboundArgumentMakesTheEntryReturnTheFirstFailure) {
  HostRun run(HelloWorld());
  run.Kernel("add", AddKernel);
  auto a = Filled(kRows, kCols, Index);
  EXPECT_EQ(run.Run({{0, a}}), 1);
  EXPECT_NE(run.error().find("tensor argument 1 was not bound"), std::string::npos) << run.error();
}

}  // namespace
}  // namespace pypto::host::testing
