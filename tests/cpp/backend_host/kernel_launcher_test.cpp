// A program whose entry is a kernel (no orchestration function) runs through
// the launcher the host backend generates for it: one task, the program's
// arguments as the kernel's, Out parameters as the results.
#include <gtest/gtest.h>

#include "host_test_util.h"
#include "programs.h"

namespace pypto::host::testing {
namespace {

// scale(x, factor, out): out = x * factor; the scalar is the kernel's middle
// parameter but its last slot.
void ScaleKernel(const int64_t* args, PyptoRtCoreContext*) {
  const PyptoRtTensorDesc& out = Desc(args, 1);
  for (int64_t r = 0; r < out.shape[0]; ++r) {
    for (int64_t c = 0; c < out.shape[1]; ++c) Element(args, 1, r, c) = Element(args, 0, r, c) * static_cast<float>(args[2]);
  }
}

ProgramPtr KernelOnlyProgram() {
  auto x = TensorParam("x"), factor = IndexParam("factor"), out = TensorParam("out");
  auto kernel = KernelFn("scale", {x, factor, out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out});
  return Program::Make("kernel_only", {kernel});
}

TEST(KernelLauncher, AProgramWithoutOrchestrationGetsALauncherPerKernel) {
  auto artifacts = Generate(KernelOnlyProgram());
  ASSERT_EQ(artifacts.size(), 1u);
  EXPECT_EQ(artifacts[0].path, "orchestration/scale.ll");
  EXPECT_NE(artifacts[0].text.find("define i32 @pypto_orchestration_scale(ptr %ctx)"), std::string::npos);
  EXPECT_NE(artifacts[0].text.find("@pypto_rt_args_add_output_existing"), std::string::npos);
}

TEST(KernelLauncher, RunsTheKernelOnceWithTensorsBeforeScalars) {
  HostRun run(KernelOnlyProgram());
  run.Kernel("scale", ScaleKernel);
  auto x = Filled(8, 4, [](int64_t i) { return static_cast<float>(i); });
  auto out = Filled(8, 4, [](int64_t) { return 0.0f; });
  ASSERT_EQ(run.Run({{0, x}, {2, out}}, {{1, 3}}, "scale"), 0) << run.error();
  for (int64_t i = 0; i < 32; ++i) ASSERT_EQ(static_cast<const float*>(out.data())[i], 3.0f * i);
  ASSERT_EQ(run.results().size(), 1u);
  EXPECT_EQ(run.results().at(0).data(), out.data());
}

}  // namespace
}  // namespace pypto::host::testing
