// For the kernels of the pipe tests that the runtime runs as cluster tasks.
//
// Each is written as a compiled kernel is, against <pto/pto-inst.hpp>: an entry
// `void f(__gm__ int64_t* args)` that reads its block with get_block_idx(args)
// and the rest of pypto/runtime/kernel_args.h. ClusterKernel<f> is the
// runtime's KernelFn (args, ctx) for it, doing what the simulator toolchain's
// appended adapter does for a compiled one: run the entry, then report the
// core's fault with the user's file (pypto_sim_finish_kernel). It also makes
// the block's core current: this binary defines pypto_sim_current_core itself
// for the other tests (see pipe_test.cpp), so the runtime's core state does not
// reach the instructions by itself.
#pragma once

#include <pto/pto-inst.hpp>

#include "pypto/backend/simulator.h"
#include "pypto/runtime/kernel_args.h"

namespace pypto::pipe_testing {

using KernelEntry = void (*)(__gm__ int64_t* args);

// The user's file the faults of these kernels name.
inline constexpr const char* kKernelFile = "mixed.py";

template <KernelEntry Entry>
void ClusterKernel(const int64_t* args, PyptoRtCoreContext* ctx) {
  pto::SetCurrentCore(static_cast<pto::SimCore*>(ctx->core_state));
  Entry(const_cast<int64_t*>(args));
  pypto_sim_finish_kernel(ctx, kKernelFile);
  pto::SetCurrentCore(nullptr);
}

}  // namespace pypto::pipe_testing
