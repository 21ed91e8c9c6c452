// The C interface generated orchestration code calls.
#include "pypto/runtime/c_api.h"

#include <string>
#include <vector>

#include "runtime/runtime_test_util.h"

namespace pypto::runtime {
namespace {

using testing::TensorArg;

// out[i] = in[i] * 2 + scalar over a 1-D FP32 window.
void Scale(const int64_t* args, PyptoRtCoreContext*) {
  const auto& in = TensorArg(args, 0);
  const auto& out = TensorArg(args, 1);
  for (int64_t i = 0; i < out.shape[0]; ++i) {
    static_cast<float*>(out.data)[i * out.strides[0]] =
        static_cast<const float*>(in.data)[i * in.strides[0]] * 2 + static_cast<float>(args[2]);
  }
}

class RuntimeCApi : public ::testing::Test {
 protected:
  void SetUp() override {
    runtime = pypto_rt_runtime_create(2);
    ctx = pypto_rt_context_create(runtime);
  }
  void TearDown() override {
    pypto_rt_context_destroy(ctx);
    pypto_rt_runtime_destroy(runtime);
  }
  PyptoRtRuntime* runtime = nullptr;
  PyptoRtContext* ctx = nullptr;
};

TEST_F(RuntimeCApi, OrchestrationThroughTheCInterfaceWritesTheBoundOutput) {
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8};
  std::vector<float> y(8, 0);
  int64_t shape[1] = {8};
  const int32_t fp32 = static_cast<int32_t>(ir::DataTypeCode::FP32);
  ASSERT_EQ(pypto_rt_set_kernel(ctx, 0, "scale", PYPTO_RT_AIV, Scale), 0);
  ASSERT_EQ(pypto_rt_bind_tensor(ctx, 0, x.data(), fp32, 1, shape, nullptr), 0);
  ASSERT_EQ(pypto_rt_bind_tensor(ctx, 1, y.data(), fp32, 1, shape, nullptr), 0);
  ASSERT_EQ(pypto_rt_bind_scalar(ctx, 0, 1), 0);

  // tmp = x * 2 + 1; y[0:4] = tmp[4:8] * 2 + 1; y[4:8] = tmp[0:4] * 2 + 1
  PyptoRtTensor* ext_x = pypto_rt_arg_tensor(ctx, 0);
  PyptoRtTensor* ext_y = pypto_rt_arg_tensor(ctx, 1);
  int64_t one = pypto_rt_arg_scalar(ctx, 0);
  PyptoRtTensor* tmp = pypto_rt_tensor_create(ctx, fp32, 1, shape);
  EXPECT_EQ(pypto_rt_tensor_dim(tmp, 0), 8);
  ASSERT_EQ(pypto_rt_scope_begin(ctx, PYPTO_RT_SCOPE_AUTO), 0);
  PyptoRtArgs* a0 = pypto_rt_args_create(ctx);
  pypto_rt_args_add_input(a0, ext_x);
  pypto_rt_args_add_output(a0, tmp);
  pypto_rt_args_add_scalar(a0, one);
  int64_t t0 = pypto_rt_submit(ctx, 0, a0, 1);
  EXPECT_GE(t0, 0);
  int64_t half[1] = {4}, lo[1] = {0}, hi[1] = {4};
  for (int part = 0; part < 2; ++part) {
    PyptoRtArgs* a = pypto_rt_args_create(ctx);
    pypto_rt_args_add_input(a, pypto_rt_tensor_view(ctx, tmp, 1, part ? lo : hi, half));
    pypto_rt_args_add_output_existing(a, pypto_rt_tensor_view(ctx, ext_y, 1, part ? hi : lo, half));
    pypto_rt_args_add_scalar(a, one);
    pypto_rt_args_set_deps(a, &t0, 1);
    EXPECT_GT(pypto_rt_submit(ctx, 0, a, 1), t0);
  }
  ASSERT_EQ(pypto_rt_scope_end(ctx), 0);
  ASSERT_EQ(pypto_rt_wait(ctx), 0) << pypto_rt_error(ctx);
  EXPECT_EQ(pypto_rt_error(ctx), nullptr);
  std::vector<float> expected = {23, 27, 31, 35, 7, 11, 15, 19};
  EXPECT_EQ(y, expected);
}

TEST_F(RuntimeCApi, TheFirstErrorIsKeptAndLaterCallsDoNothing) {
  PyptoRtArgs* args = pypto_rt_args_create(ctx);
  EXPECT_EQ(pypto_rt_submit(ctx, 3, args, 1), -1);
  ASSERT_NE(pypto_rt_error(ctx), nullptr);
  std::string first = pypto_rt_error(ctx);
  EXPECT_NE(first.find("no kernel was set for function id 3"), std::string::npos) << first;
  EXPECT_EQ(pypto_rt_arg_tensor(ctx, 9), nullptr);
  EXPECT_NE(pypto_rt_scope_begin(ctx, PYPTO_RT_SCOPE_AUTO), 0);
  EXPECT_EQ(std::string(pypto_rt_error(ctx)), first);
  EXPECT_NE(pypto_rt_wait(ctx), 0);
}

TEST_F(RuntimeCApi, ASyncStartSubmitNeedsAClusterPerBlock) {
  pypto_rt_set_kernel(ctx, 0, "grid", PYPTO_RT_AIV, [](const int64_t*, PyptoRtCoreContext*) {});
  PyptoRtArgs* fits = pypto_rt_args_create(ctx);
  ASSERT_EQ(pypto_rt_args_set_sync_start(fits, 1), 0);
  EXPECT_GE(pypto_rt_submit(ctx, 0, fits, 2), 0);
  ASSERT_EQ(pypto_rt_wait(ctx), 0) << pypto_rt_error(ctx);
  PyptoRtArgs* too_many = pypto_rt_args_create(ctx);
  pypto_rt_args_set_sync_start(too_many, 1);
  EXPECT_EQ(pypto_rt_submit(ctx, 0, too_many, 3), -1);
  std::string error = pypto_rt_error(ctx);
  EXPECT_NE(error.find("the runtime has 2 clusters; use core_num <= 2 or drop sync_start"), std::string::npos)
      << error;
  EXPECT_EQ(pypto_rt_args_set_sync_start(nullptr, 1), 1);
}

TEST_F(RuntimeCApi, AKernelFaultIsReportedByWait) {
  auto fail = [](const int64_t*, PyptoRtCoreContext* c) { pypto_rt_kernel_fail(c, "TADD", "add.py", 7, "NaN found"); };
  pypto_rt_set_kernel(ctx, 1, "add_kernel", PYPTO_RT_AIV, fail);
  pypto_rt_submit(ctx, 1, pypto_rt_args_create(ctx), 1);
  EXPECT_NE(pypto_rt_wait(ctx), 0);
  std::string error = pypto_rt_error(ctx);
  EXPECT_NE(error.find("kernel 'add_kernel' (task"), std::string::npos) << error;
  EXPECT_NE(error.find("faulted in TADD at add.py:7: NaN found"), std::string::npos) << error;
}

TEST_F(RuntimeCApi, BadUnboundArgumentsAndShapesAreErrors) {
  EXPECT_EQ(pypto_rt_arg_scalar(ctx, 2), 0);
  EXPECT_NE(std::string(pypto_rt_error(ctx)).find("scalar argument 2 was not bound"), std::string::npos);
  PyptoRtContext* other = pypto_rt_context_create(runtime);
  int64_t shape[2] = {2, 2}, offsets[2] = {1, 1};
  PyptoRtTensor* t = pypto_rt_tensor_create(other, static_cast<int32_t>(ir::DataTypeCode::FP16), 2, shape);
  EXPECT_EQ(pypto_rt_tensor_view(other, t, 2, offsets, shape), nullptr);
  EXPECT_NE(std::string(pypto_rt_error(other)).find("leaves FP16[2, 2]"), std::string::npos);
  pypto_rt_context_destroy(other);
}

}  // namespace
}  // namespace pypto::runtime
