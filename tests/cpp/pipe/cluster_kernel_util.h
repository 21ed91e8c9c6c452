// For the kernels of the pipe tests that the runtime runs as cluster tasks:
// they find their simulated core through the runtime's context (this binary
// defines pypto_sim_current_core for the other tests, see pipe_test.cpp).
#pragma once

#include "pypto/isa/kernel_abi.h"

namespace pypto::pipe_testing {

inline pto::SimCore* EnterKernel(PyptoRtCoreContext* ctx) {
  pto::SetCurrentCore(static_cast<pto::SimCore*>(ctx->core_state));
  return static_cast<pto::SimCore*>(ctx->core_state);
}

inline void LeaveKernel(PyptoRtCoreContext* ctx) {
  pypto_sim_finish_kernel(ctx, "mixed.py");
  pto::SetCurrentCore(nullptr);
}

}  // namespace pypto::pipe_testing
