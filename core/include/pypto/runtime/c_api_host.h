// The C++ side of the runtime's C interface, for the native code that runs a
// program (the simulator toolchain): contexts over a Runtime the caller owns,
// arguments bound from runtime::Tensor without copies, and the results the
// orchestration set with pypto_rt_set_result.
#pragma once

#include <cstdint>
#include <map>

#include "pypto/runtime/c_api.h"
#include "pypto/runtime/runtime.h"
#include "pypto/runtime/tensor.h"

namespace pypto::runtime {

// Destroy with pypto_rt_context_destroy; `runtime` must outlive it.
PyptoRtContext* CreateContext(Runtime& runtime);
// Argument `index` of the program is `tensor` (shared, not copied).
void BindTensor(PyptoRtContext* ctx, int32_t index, const Tensor& tensor);
// Result index -> tensor, as the orchestration set them.
std::map<int32_t, Tensor> Results(const PyptoRtContext* ctx);

}  // namespace pypto::runtime
