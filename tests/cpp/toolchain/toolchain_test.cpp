// The simulator toolchain end to end on hand-written artifacts: a kernel
// against the SDK's tile ISA and an orchestration in LLVM IR text, built,
// linked and run on simulated cores; faults, compile errors and the Ascend
// toolchain's refusal.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "plugin/error_matchers.h"
#include "pypto/backend/toolchain.h"
#include "pypto/runtime/tensor.h"
#include "pypto/support/error.h"

namespace {

using pypto::Error;
using pypto::ErrorKind;
using pypto::backend::Artifact;
using pypto::backend::ArtifactKind;
using pypto::backend::BuildOptions;
using pypto::backend::GetToolchain;
using pypto::backend::ProgramArg;
using pypto::runtime::Tensor;
using pypto::testing::ErrorFrom;

// out = a + scalar over a 16x16 FP32 tile; the second tile's address is a
// parameter so that a test can push it past Vec's capacity.
std::string AddScalarKernel(int second_tile_address) {
  return R"(#include "pypto/isa/kernel_abi.h"
using namespace pto;
extern "C" void kernel_entry(const int64_t* args, PyptoRtCoreContext* ctx) {
  using GT = GlobalTensor<float, Shape<1, 1, 1, 16, 16>>;
  using VT = Tile<TileType::Vec, float, 16, 16>;
  VT ta, tb;
  TASSIGN(ta, 0x0, Loc{3});
  TASSIGN(tb, )" + std::to_string(second_tile_address) +
         R"(, Loc{4});
  GT ga(TensorData<float>(args, 0)), go(TensorData<float>(args, 1));
  TLOAD(ta, ga, Loc{5});
  TADDS(tb, ta, ScalarArg<float>(args, 2), Loc{6});
  TSTORE(go, tb, Loc{7});
  pypto_sim_finish_kernel(ctx, "user.py");
}
)";
}

const char* kOrchestration = R"(
declare ptr @pypto_rt_arg_tensor(ptr, i32)
declare i64 @pypto_rt_arg_scalar(ptr, i32)
declare i32 @pypto_rt_set_kernel(ptr, i32, ptr, i32, ptr)
declare ptr @pypto_rt_args_create(ptr)
declare i32 @pypto_rt_args_add_input(ptr, ptr)
declare i32 @pypto_rt_args_add_output_existing(ptr, ptr)
declare i32 @pypto_rt_args_add_scalar(ptr, i64)
declare i64 @pypto_rt_submit(ptr, i32, ptr, i32)
declare i32 @pypto_rt_set_result(ptr, i32, ptr)
declare void @pypto_kernel_add_scalar(ptr, ptr)
@name = private constant [11 x i8] c"add_scalar\00"

define i32 @pypto_orchestration_main(ptr %ctx) {
  %registered = call i32 @pypto_rt_set_kernel(ptr %ctx, i32 0, ptr @name, i32 1, ptr @pypto_kernel_add_scalar)
  %a = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 0)
  %out = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 1)
  %s = call i64 @pypto_rt_arg_scalar(ptr %ctx, i32 2)
  %args = call ptr @pypto_rt_args_create(ptr %ctx)
  %1 = call i32 @pypto_rt_args_add_input(ptr %args, ptr %a)
  %2 = call i32 @pypto_rt_args_add_output_existing(ptr %args, ptr %out)
  %3 = call i32 @pypto_rt_args_add_scalar(ptr %args, i64 %s)
  %task = call i64 @pypto_rt_submit(ptr %ctx, i32 0, ptr %args, i32 1)
  %4 = call i32 @pypto_rt_set_result(ptr %ctx, i32 0, ptr %out)
  ret i32 0
}
)";

std::vector<Artifact> Program(const std::string& kernel, const std::string& orchestration = kOrchestration) {
  return {Artifact{"kernels/aiv/add_scalar.cpp", ArtifactKind::kKernelSource, pypto::ir::FunctionType::AIV,
                   "add_scalar", kernel},
          Artifact{"orchestration/main.ll", ArtifactKind::kOrchestrationIR, std::nullopt, "main", orchestration}};
}

BuildOptions NoCache() {
  BuildOptions options;
  options.platform = "a2a3sim";
  options.use_cache = false;
  options.clusters = 2;
  return options;
}

int64_t FloatBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

TEST(SimulatorToolchain, BuildsAndRunsAKernelFromItsOrchestration) {
  auto exe = GetToolchain("simulator").Build(Program(AddScalarKernel(1024)), NoCache());
  EXPECT_EQ(exe->entries(), std::vector<std::string>{"main"});
  EXPECT_EQ(exe->build_stats().kernels, 1);
  std::vector<float> a(256), out(256, 0.0f);
  for (int i = 0; i < 256; ++i) a[i] = static_cast<float>(i);
  Tensor ta = Tensor::Wrap(a.data(), pypto::ir::DataType::FP32, {16, 16});
  Tensor tout = Tensor::Wrap(out.data(), pypto::ir::DataType::FP32, {16, 16});
  auto results = exe->Run("main", {ProgramArg::OfTensor(ta), ProgramArg::OfTensor(tout), ProgramArg::OfScalar(FloatBits(2.5f))});
  for (int i = 0; i < 256; ++i) ASSERT_EQ(out[i], a[i] + 2.5f) << "element " << i;
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].data(), out.data());
}

TEST(SimulatorToolchain, RunTracedRecordsTheRunAndLeavesLaterRunsUntraced) {
  auto exe = GetToolchain("simulator").Build(Program(AddScalarKernel(1024)), NoCache());
  std::vector<float> a(256, 1.0f), out(256, 0.0f);
  auto args = std::vector<ProgramArg>{
      ProgramArg::OfTensor(Tensor::Wrap(a.data(), pypto::ir::DataType::FP32, {16, 16})),
      ProgramArg::OfTensor(Tensor::Wrap(out.data(), pypto::ir::DataType::FP32, {16, 16})),
      ProgramArg::OfScalar(FloatBits(1.0f))};
  pypto::runtime::RunTrace trace;
  exe->RunTraced("main", args, trace);
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(trace.clusters, 2);
  ASSERT_EQ(trace.tasks.size(), 1u);
  EXPECT_EQ(trace.tasks[0].kernel, "add_scalar");
  ASSERT_EQ(trace.tasks[0].spans.size(), 1u);
  EXPECT_LE(trace.tasks[0].spans[0].start_ns, trace.tasks[0].spans[0].end_ns);
  ASSERT_EQ(trace.tensors.size(), 2u);
  EXPECT_EQ(trace.tensors[0].buffer_addr, reinterpret_cast<uintptr_t>(a.data()));

  exe->Run("main", args);
  pypto::runtime::RunTrace again;
  exe->RunTraced("main", args, again);
  EXPECT_EQ(again.tasks.size(), 1u);  // this run only, not the untraced one before it
}

TEST(SimulatorToolchain, AFaultNamesKernelInstructionAndLineAndTheNextRunWorks) {
  auto exe = GetToolchain("simulator").Build(Program(AddScalarKernel(188416)), NoCache());
  std::vector<float> a(256, 1.0f), out(256, 0.0f);
  auto args = std::vector<ProgramArg>{
      ProgramArg::OfTensor(Tensor::Wrap(a.data(), pypto::ir::DataType::FP32, {16, 16})),
      ProgramArg::OfTensor(Tensor::Wrap(out.data(), pypto::ir::DataType::FP32, {16, 16})), ProgramArg::OfScalar(0)};
  for (int attempt = 0; attempt < 2; ++attempt) {
    Error e = ErrorFrom([&] { exe->Run("main", args); });
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(e.message().find("kernel 'add_scalar'"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("TASSIGN at user.py:4"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("Vec holds 188416 bytes"), std::string::npos) << e.message();
    EXPECT_EQ(e.span().filename, "user.py");
    EXPECT_EQ(e.span().begin_line, 4);
  }
}

TEST(SimulatorToolchain, KernelCompileErrorNamesTheFileAndLine) {
  Error e = ErrorFrom([&] { GetToolchain("simulator").Build(Program("int x = ;\n"), NoCache()); });
  EXPECT_EQ(e.kind(), ErrorKind::kCompile);
  EXPECT_NE(e.message().find("kernels/aiv/add_scalar.cpp:1"), std::string::npos) << e.message();
}

TEST(SimulatorToolchain, OrchestrationThatDoesNotParseNamesTheLine) {
  Error e = ErrorFrom([&] { GetToolchain("simulator").Build(Program(AddScalarKernel(1024), "define i32 @f(\n"), NoCache()); });
  EXPECT_EQ(e.kind(), ErrorKind::kCompile);
  EXPECT_NE(e.message().find("orchestration/main.ll"), std::string::npos) << e.message();
}

TEST(SimulatorToolchain, AnUnknownEntryListsTheKnownOnes) {
  auto exe = GetToolchain("simulator").Build(Program(AddScalarKernel(1024)), NoCache());
  Error e = ErrorFrom([&] { exe->Run("other", {}); });
  EXPECT_NE(e.message().find("has main"), std::string::npos) << e.message();
}

TEST(AscendToolchain, RefusesToBuildAndSaysWhatIsMissing) {
  auto& ascend = GetToolchain("ascend");
  EXPECT_NE(ascend.Unavailable().find("CANN"), std::string::npos);
  BuildOptions options;
  options.platform = "a2a3";
  Error e = ErrorFrom([&] { ascend.Build(Program(AddScalarKernel(1024)), options); });
  EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
  EXPECT_NE(e.message().find("platform 'a2a3' cannot run on this machine"), std::string::npos) << e.message();
  EXPECT_NE(e.message().find("a2a3sim"), std::string::npos);
}

TEST(Toolchains, AnUnknownNameListsTheToolchains) {
  Error e = ErrorFrom([] { GetToolchain("gcc"); });
  EXPECT_NE(e.message().find("ascend, simulator"), std::string::npos) << e.message();
}

}  // namespace
