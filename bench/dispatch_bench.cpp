// What the simulator's runtime costs, without Python: one call of a built
// one-task program (Executable::Run of a 16x16 add: context, binding,
// submit, scheduling, results), and the per-task cost of a parallel loop of
// empty tasks, the shape of a row-blocked kernel (every task reads all of
// one tensor and writes all of another). Prints medians; asserts nothing.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pypto/backend/toolchain.h"
#include "pypto/runtime/runtime.h"
#include "pypto/runtime/tensor.h"

namespace {

using pypto::backend::Artifact;
using pypto::backend::ArtifactKind;
using pypto::backend::BuildOptions;
using pypto::backend::GetToolchain;
using pypto::backend::ProgramArg;
using pypto::runtime::KernelSet;
using pypto::runtime::Runtime;
using pypto::runtime::RuntimeOptions;
using pypto::runtime::ScopeMode;
using pypto::runtime::TaskArgs;
using pypto::runtime::Tensor;

void EmptyKernel(const int64_t*, PyptoRtCoreContext*) {}

const char* kKernel = R"(#include <stdint.h>
#include <pto/pto-inst.hpp>
#include "pypto/runtime/kernel_args.h"
using namespace pto;
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {
  using GT = GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<256, 256, 256, 16, 1>>;
  using VT = Tile<TileType::Vec, float, 16, 16>;
  auto data = [args](int i) {
    return reinterpret_cast<__gm__ float*>(reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[i])->data);
  };
  VT ta, tb, tc;
  TASSIGN(ta, 0x0);
  TASSIGN(tb, 0x400);
  TASSIGN(tc, 0x800);
  GT ga(data(0)), gb(data(1)), go(data(2));
  TLOAD(ta, ga);
  TLOAD(tb, gb);
  TADD(tc, ta, tb);
  TSTORE(go, tc);
}
)";

const char* kOrchestration = R"(
declare ptr @pypto_rt_arg_tensor(ptr, i32)
declare i32 @pypto_rt_set_kernel(ptr, i32, ptr, i32, ptr)
declare ptr @pypto_rt_args_create(ptr)
declare i32 @pypto_rt_args_add_input(ptr, ptr)
declare i32 @pypto_rt_args_add_output_existing(ptr, ptr)
declare i64 @pypto_rt_submit(ptr, i32, ptr, i32)
declare i32 @pypto_rt_set_result(ptr, i32, ptr)
declare void @pypto_kernel_add(ptr, ptr)
@name = private constant [4 x i8] c"add\00"

define i32 @pypto_orchestration_main(ptr %ctx) {
  %registered = call i32 @pypto_rt_set_kernel(ptr %ctx, i32 0, ptr @name, i32 1, ptr @pypto_kernel_add)
  %a = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 0)
  %b = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 1)
  %out = call ptr @pypto_rt_arg_tensor(ptr %ctx, i32 2)
  %args = call ptr @pypto_rt_args_create(ptr %ctx)
  %1 = call i32 @pypto_rt_args_add_input(ptr %args, ptr %a)
  %2 = call i32 @pypto_rt_args_add_input(ptr %args, ptr %b)
  %3 = call i32 @pypto_rt_args_add_output_existing(ptr %args, ptr %out)
  %task = call i64 @pypto_rt_submit(ptr %ctx, i32 0, ptr %args, i32 1)
  %4 = call i32 @pypto_rt_set_result(ptr %ctx, i32 0, ptr %out)
  ret i32 0
}
)";

template <typename F>
double MedianMicros(F&& f, int rounds) {
  for (int i = 0; i < rounds / 10; ++i) f();
  std::vector<double> samples;
  for (int i = 0; i < rounds; ++i) {
    auto start = std::chrono::steady_clock::now();
    f();
    samples.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 20000;
  std::vector<Artifact> program = {
      Artifact{"kernels/aiv/add.cpp", ArtifactKind::kKernelSource, pypto::ir::FunctionType::AIV, "add", kKernel},
      Artifact{"orchestration/main.ll", ArtifactKind::kOrchestrationIR, std::nullopt, "main", kOrchestration}};
  BuildOptions options;
  options.platform = "a2a3sim";
  options.use_cache = false;
  auto exe = GetToolchain("simulator").Build(program, options);
  Tensor a = Tensor::Allocate(pypto::ir::DataType::FP32, {16, 16});
  Tensor b = Tensor::Allocate(pypto::ir::DataType::FP32, {16, 16});
  Tensor out = Tensor::Allocate(pypto::ir::DataType::FP32, {16, 16});
  std::vector<ProgramArg> args = {ProgramArg::OfTensor(a), ProgramArg::OfTensor(b), ProgramArg::OfTensor(out)};
  double run = MedianMicros([&] { exe->Run("main", args); }, rounds);
  std::printf("%-58s %8.1f us\n", "Executable::Run, one 16x16 add task (median)", run);

  constexpr int kTasks = 256;
  Runtime runtime{RuntimeOptions{2}};
  Tensor x = Tensor::Allocate(pypto::ir::DataType::FP32, {kTasks, 64});
  Tensor y = Tensor::Allocate(pypto::ir::DataType::FP32, {kTasks, 64});
  KernelSet empty = KernelSet::Aiv({"empty", EmptyKernel});
  double loop = MedianMicros(
      [&] {
        runtime.BeginScope(ScopeMode::Parallel);
        for (int i = 0; i < kTasks; ++i) {
          runtime.NextIteration();
          runtime.Submit(empty, TaskArgs().AddInput(x).AddOutputExisting(y).AddScalar(i));
        }
        runtime.EndScope();
        runtime.WaitAll();
      },
      rounds / 100 + 10);
  std::printf("%-58s %8.2f us\n", "per task, parallel loop of 256 empty tasks on 2 clusters", loop / kTasks);
  return 0;
}
