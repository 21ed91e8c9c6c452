// The C interface over Runtime and Tensor. Errors never cross it as
// exceptions: the first one is kept in the context and turns later calls into
// no-ops that return its status.
#include "pypto/runtime/c_api.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pypto/runtime/runtime.h"

using pypto::runtime::Kernel;
using pypto::runtime::KernelSet;
using pypto::runtime::Runtime;
using pypto::runtime::TaskArgs;
using pypto::runtime::TaskId;
using pypto::runtime::Tensor;

struct PyptoRtRuntime {
  explicit PyptoRtRuntime(int n) : runtime(pypto::runtime::RuntimeOptions{n}) {}
  Runtime runtime;
};

struct PyptoRtTensor {
  Tensor tensor;
};

struct PyptoRtArgs {
  PyptoRtContext* ctx;
  TaskArgs args;
  std::vector<TaskId> deps;
  bool sync_start = false;
};

struct PyptoRtContext {
  struct KernelEntry {
    Kernel kernel;
    int32_t core_type;
  };

  Runtime* runtime;
  std::string error;
  bool failed = false;
  std::map<int32_t, KernelEntry> kernels;
  std::map<int32_t, PyptoRtTensor*> tensor_args;
  std::map<int32_t, int64_t> scalar_args;
  std::map<int32_t, Tensor> results;
  std::deque<PyptoRtTensor> tensors;  // deque: handles stay valid as it grows
  std::deque<PyptoRtArgs> args;
};

namespace {

constexpr int32_t kFailed = 1;

void Fail(PyptoRtContext* ctx, const std::string& message) {
  if (ctx->failed) return;
  ctx->failed = true;
  ctx->error = message;
}

template <typename F>
int32_t Guard(PyptoRtContext* ctx, F&& body) {
  if (ctx == nullptr) return kFailed;
  if (ctx->failed) return kFailed;
  try {
    body();
    return 0;
  } catch (const std::exception& e) {
    Fail(ctx, e.what());
    return kFailed;
  }
}

pypto::ir::DataType DTypeFromCode(int32_t code, const char* fn) {
  auto dtype = pypto::ir::DataType::FromCode(code);
  if (!dtype) pypto::ThrowValueError(std::string(fn) + ": unknown dtype code " + std::to_string(code));
  return *dtype;
}

pypto::runtime::Dims DimsFrom(const int64_t* values, int32_t ndim, const char* fn, const char* what) {
  if (ndim < 0 || ndim > PYPTO_RT_MAX_DIMS) {
    pypto::ThrowValueError(std::string(fn) + ": ndim must be 0.." + std::to_string(PYPTO_RT_MAX_DIMS) + ", got " +
                           std::to_string(ndim));
  }
  if (ndim > 0 && values == nullptr) pypto::ThrowValueError(std::string(fn) + ": " + what + " is NULL");
  return pypto::runtime::Dims(values, values + ndim);
}

const PyptoRtContext::KernelEntry& FindKernel(PyptoRtContext* ctx, int32_t func_id, const char* fn) {
  auto it = ctx->kernels.find(func_id);
  if (it == ctx->kernels.end()) {
    pypto::ThrowValueError(std::string(fn) + ": no kernel was set for function id " + std::to_string(func_id));
  }
  return it->second;
}

int32_t AddTensor(PyptoRtArgs* args, const PyptoRtTensor* tensor, pypto::runtime::ArgDirection dir) {
  if (args == nullptr) return kFailed;
  return Guard(args->ctx, [&] {
    if (tensor == nullptr) pypto::ThrowValueError("pypto_rt_args_add: the tensor handle is NULL");
    args->args.Add(dir, tensor->tensor);
  });
}

int64_t SubmitSet(PyptoRtContext* ctx, const KernelSet& set, const PyptoRtArgs* args, int32_t core_num) {
  TaskId id = -1;
  Guard(ctx, [&] {
    if (args == nullptr) pypto::ThrowValueError("pypto_rt_submit: the args handle is NULL");
    id = ctx->runtime->Submit(set, args->args, core_num, args->deps, args->sync_start);
  });
  return id;
}

}  // namespace

extern "C" {

PyptoRtRuntime* pypto_rt_runtime_create(int32_t num_clusters) {
  try {
    return new PyptoRtRuntime(num_clusters);
  } catch (const std::exception&) {
    return nullptr;
  }
}

void pypto_rt_runtime_destroy(PyptoRtRuntime* runtime) { delete runtime; }

PyptoRtContext* pypto_rt_context_create(PyptoRtRuntime* runtime) {
  if (runtime == nullptr) return nullptr;
  auto* ctx = new PyptoRtContext();
  ctx->runtime = &runtime->runtime;
  return ctx;
}

void pypto_rt_context_destroy(PyptoRtContext* ctx) {
  if (ctx == nullptr) return;
  try {
    ctx->runtime->WaitAll();
  } catch (const std::exception&) {
    // The run is over either way; its error was for pypto_rt_wait to report.
  }
  delete ctx;
}

const char* pypto_rt_error(const PyptoRtContext* ctx) {
  return ctx != nullptr && ctx->failed ? ctx->error.c_str() : nullptr;
}

int32_t pypto_rt_set_kernel(PyptoRtContext* ctx, int32_t func_id, const char* name, int32_t core_type,
                            PyptoRtKernelFn fn) {
  return Guard(ctx, [&] {
    if (fn == nullptr) pypto::ThrowValueError("pypto_rt_set_kernel: function id " + std::to_string(func_id) + " has a NULL entry");
    if (core_type != PYPTO_RT_AIC && core_type != PYPTO_RT_AIV) {
      pypto::ThrowValueError("pypto_rt_set_kernel: core type " + std::to_string(core_type) +
                             " is neither PYPTO_RT_AIC (0) nor PYPTO_RT_AIV (1)");
    }
    ctx->kernels[func_id] = {Kernel{name ? name : "func" + std::to_string(func_id), fn}, core_type};
  });
}

int32_t pypto_rt_bind_tensor(PyptoRtContext* ctx, int32_t index, void* data, int32_t dtype, int32_t ndim,
                             const int64_t* shape, const int64_t* strides) {
  return Guard(ctx, [&] {
    auto dims = DimsFrom(shape, ndim, "pypto_rt_bind_tensor", "shape");
    auto steps = strides ? DimsFrom(strides, ndim, "pypto_rt_bind_tensor", "strides") : pypto::runtime::Dims{};
    ctx->tensors.push_back({Tensor::Wrap(data, DTypeFromCode(dtype, "pypto_rt_bind_tensor"), {dims.begin(), dims.end()},
                                         {steps.begin(), steps.end()})});
    ctx->tensor_args[index] = &ctx->tensors.back();
  });
}

int32_t pypto_rt_bind_scalar(PyptoRtContext* ctx, int32_t index, int64_t value) {
  return Guard(ctx, [&] { ctx->scalar_args[index] = value; });
}

PyptoRtTensor* pypto_rt_arg_tensor(PyptoRtContext* ctx, int32_t index) {
  PyptoRtTensor* out = nullptr;
  Guard(ctx, [&] {
    auto it = ctx->tensor_args.find(index);
    if (it == ctx->tensor_args.end()) {
      pypto::ThrowValueError("pypto_rt_arg_tensor: tensor argument " + std::to_string(index) + " was not bound");
    }
    out = it->second;
  });
  return out;
}

int64_t pypto_rt_arg_scalar(PyptoRtContext* ctx, int32_t index) {
  int64_t out = 0;
  Guard(ctx, [&] {
    auto it = ctx->scalar_args.find(index);
    if (it == ctx->scalar_args.end()) {
      pypto::ThrowValueError("pypto_rt_arg_scalar: scalar argument " + std::to_string(index) + " was not bound");
    }
    out = it->second;
  });
  return out;
}

int32_t pypto_rt_set_result(PyptoRtContext* ctx, int32_t index, const PyptoRtTensor* tensor) {
  return Guard(ctx, [&] {
    if (tensor == nullptr) pypto::ThrowValueError("pypto_rt_set_result: the tensor handle is NULL");
    if (index < 0) pypto::ThrowValueError("pypto_rt_set_result: result index " + std::to_string(index) + " is negative");
    ctx->results.insert_or_assign(index, tensor->tensor);
  });
}

PyptoRtTensor* pypto_rt_tensor_create(PyptoRtContext* ctx, int32_t dtype, int32_t ndim, const int64_t* shape) {
  PyptoRtTensor* out = nullptr;
  Guard(ctx, [&] {
    auto dims = DimsFrom(shape, ndim, "pypto_rt_tensor_create", "shape");
    ctx->tensors.push_back({Tensor::Allocate(DTypeFromCode(dtype, "pypto_rt_tensor_create"), {dims.begin(), dims.end()})});
    out = &ctx->tensors.back();
    ctx->runtime->RecordAllocation(out->tensor.storage()->bytes());
  });
  return out;
}

PyptoRtTensor* pypto_rt_tensor_view(PyptoRtContext* ctx, const PyptoRtTensor* base, int32_t ndim,
                                    const int64_t* offsets, const int64_t* shape) {
  PyptoRtTensor* out = nullptr;
  Guard(ctx, [&] {
    if (base == nullptr) pypto::ThrowValueError("pypto_rt_tensor_view: the base tensor handle is NULL");
    auto offs = DimsFrom(offsets, ndim, "pypto_rt_tensor_view", "offsets");
    auto dims = DimsFrom(shape, ndim, "pypto_rt_tensor_view", "shape");
    ctx->tensors.push_back({base->tensor.View(offs, dims)});
    out = &ctx->tensors.back();
  });
  return out;
}

int64_t pypto_rt_tensor_dim(const PyptoRtTensor* tensor, int32_t axis) {
  if (tensor == nullptr || axis < 0 || axis >= tensor->tensor.ndim()) return -1;
  return tensor->tensor.shape()[axis];
}

PyptoRtArgs* pypto_rt_args_create(PyptoRtContext* ctx) {
  PyptoRtArgs* out = nullptr;
  Guard(ctx, [&] {
    ctx->args.push_back({ctx, TaskArgs(), {}});
    out = &ctx->args.back();
  });
  return out;
}

int32_t pypto_rt_args_add_input(PyptoRtArgs* args, const PyptoRtTensor* t) {
  return AddTensor(args, t, pypto::runtime::ArgDirection::Input);
}
int32_t pypto_rt_args_add_output(PyptoRtArgs* args, const PyptoRtTensor* t) {
  return AddTensor(args, t, pypto::runtime::ArgDirection::Output);
}
int32_t pypto_rt_args_add_inout(PyptoRtArgs* args, const PyptoRtTensor* t) {
  return AddTensor(args, t, pypto::runtime::ArgDirection::InOut);
}
int32_t pypto_rt_args_add_output_existing(PyptoRtArgs* args, const PyptoRtTensor* t) {
  return AddTensor(args, t, pypto::runtime::ArgDirection::OutputExisting);
}
int32_t pypto_rt_args_add_no_dep(PyptoRtArgs* args, const PyptoRtTensor* t) {
  return AddTensor(args, t, pypto::runtime::ArgDirection::NoDep);
}

int32_t pypto_rt_args_add_scalar(PyptoRtArgs* args, int64_t value) {
  if (args == nullptr) return kFailed;
  return Guard(args->ctx, [&] { args->args.AddScalar(value); });
}

int32_t pypto_rt_args_set_deps(PyptoRtArgs* args, const int64_t* task_ids, int32_t count) {
  if (args == nullptr) return kFailed;
  return Guard(args->ctx, [&] {
    if (count < 0 || (count > 0 && task_ids == nullptr)) {
      pypto::ThrowValueError("pypto_rt_args_set_deps: " + std::to_string(count) + " deps from a NULL array");
    }
    args->deps.assign(task_ids, task_ids + count);
  });
}

int32_t pypto_rt_args_set_sync_start(PyptoRtArgs* args, int32_t sync_start) {
  if (args == nullptr) return kFailed;
  args->sync_start = sync_start != 0;
  return 0;
}

int64_t pypto_rt_submit(PyptoRtContext* ctx, int32_t func_id, const PyptoRtArgs* args, int32_t core_num) {
  KernelSet set;
  if (Guard(ctx, [&] {
        const auto& entry = FindKernel(ctx, func_id, "pypto_rt_submit");
        set = entry.core_type == PYPTO_RT_AIC ? KernelSet::Aic(entry.kernel) : KernelSet::Aiv(entry.kernel);
      }) != 0) {
    return -1;
  }
  return SubmitSet(ctx, set, args, core_num);
}

int64_t pypto_rt_submit_mixed(PyptoRtContext* ctx, int32_t aic_func_id, int32_t aiv0_func_id, int32_t aiv1_func_id,
                              const PyptoRtArgs* args, int32_t core_num) {
  KernelSet set;
  if (Guard(ctx, [&] {
        if (aic_func_id != PYPTO_RT_INVALID_KERNEL) set.aic = FindKernel(ctx, aic_func_id, "pypto_rt_submit_mixed").kernel;
        if (aiv0_func_id != PYPTO_RT_INVALID_KERNEL) set.aiv[0] = FindKernel(ctx, aiv0_func_id, "pypto_rt_submit_mixed").kernel;
        if (aiv1_func_id != PYPTO_RT_INVALID_KERNEL) set.aiv[1] = FindKernel(ctx, aiv1_func_id, "pypto_rt_submit_mixed").kernel;
      }) != 0) {
    return -1;
  }
  return SubmitSet(ctx, set, args, core_num);
}

int64_t pypto_rt_submit_join(PyptoRtContext* ctx, const PyptoRtArgs* args) {
  TaskId id = -1;
  Guard(ctx, [&] {
    if (args == nullptr) pypto::ThrowValueError("pypto_rt_submit_join: the args handle is NULL");
    id = ctx->runtime->SubmitJoin(args->deps);
  });
  return id;
}

int32_t pypto_rt_scope_begin(PyptoRtContext* ctx, int32_t mode) {
  return Guard(ctx, [&] {
    if (mode != PYPTO_RT_SCOPE_AUTO && mode != PYPTO_RT_SCOPE_MANUAL && mode != PYPTO_RT_SCOPE_PARALLEL) {
      pypto::ThrowValueError("pypto_rt_scope_begin: mode " + std::to_string(mode) +
                             " is none of AUTO (0), MANUAL (1) and PARALLEL (2)");
    }
    ctx->runtime->BeginScope(mode == PYPTO_RT_SCOPE_MANUAL     ? pypto::runtime::ScopeMode::Manual
                             : mode == PYPTO_RT_SCOPE_PARALLEL ? pypto::runtime::ScopeMode::Parallel
                                                               : pypto::runtime::ScopeMode::Auto);
  });
}

int32_t pypto_rt_parallel_next(PyptoRtContext* ctx) {
  return Guard(ctx, [&] { ctx->runtime->NextIteration(); });
}

int32_t pypto_rt_scope_end(PyptoRtContext* ctx) {
  return Guard(ctx, [&] { ctx->runtime->EndScope(); });
}

int32_t pypto_rt_dump_tag(PyptoRtContext* ctx, const PyptoRtTensor* tensor) {
  return Guard(ctx, [&] {
    if (tensor == nullptr) pypto::ThrowValueError("pypto_rt_dump_tag: the tensor handle is NULL");
    ctx->runtime->TagForDump(tensor->tensor);
  });
}

int32_t pypto_rt_wait(PyptoRtContext* ctx) {
  if (ctx == nullptr) return kFailed;
  try {
    ctx->runtime->WaitAll();
  } catch (const std::exception& e) {
    Fail(ctx, e.what());
  }
  return ctx->failed ? kFailed : 0;
}

}  // extern "C"

namespace pypto::runtime {

PyptoRtContext* CreateContext(Runtime& runtime) {
  auto* ctx = new PyptoRtContext();
  ctx->runtime = &runtime;
  return ctx;
}

void BindTensor(PyptoRtContext* ctx, int32_t index, const Tensor& tensor) {
  ctx->tensors.push_back({tensor});
  ctx->tensor_args[index] = &ctx->tensors.back();
}

std::map<int32_t, Tensor> Results(const PyptoRtContext* ctx) { return ctx->results; }

}  // namespace pypto::runtime
