// The simulated NPU's cores: one pto::SimCore per core of every cluster
// (1 AIC + 2 AIV), with on-chip buffers sized from the platform file, handed
// to the runtime as its per-core state (RuntimeOptions::core_state).
//
// Kernels compiled against the SDK's tile ISA (<pto/pto-inst.hpp>) find
// their core through pypto_sim_current_core(), their block through
// pypto_kernel_context() and report a window leaving its tensor through
// pypto_kernel_window_fault() (pypto/runtime/kernel_args.h); the simulator
// toolchain's adapter ends each with pypto_sim_finish_kernel(). All are
// defined here: the fault a core recorded
// becomes a runtime kernel fault naming the kernel, the instruction, the
// user's source line and the numbers involved.
//
// Each cluster also has a cross-core pipe (pypto/backend/sim_pipe.h) its
// three cores point at; the runtime's cluster hooks start it afresh for each
// block of a cluster task and tell it which kernels returned.
//
// Each core can check its kernels' pipe synchronization
// (pypto/backend/pipe_hazards.h): a PipeHazard fault names the two
// instructions no event orders.
//
// Each core also has a performance model (pypto/isa/perf_model.h) with the
// platform's pipe figures; the runtime turns it on around the kernels of a
// traced run and reads the counters into the trace (RuntimeOptions hooks).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/backend/sim_pipe.h"
#include "pypto/isa/perf_model.h"
#include "pypto/isa/sim_core.h"
#include "pypto/runtime/runtime.h"

namespace pypto::backend {

class SimulatedCores {
 public:
  // Buffers for `clusters` clusters of `platform`; an AIC gets the cube
  // spaces (Mat, Left, Right, Acc, Bias), an AIV gets Vec.
  SimulatedCores(const Platform& platform, int clusters);
  ~SimulatedCores();
  SimulatedCores(const SimulatedCores&) = delete;
  SimulatedCores& operator=(const SimulatedCores&) = delete;

  // The core of (cluster, type, lane), for RuntimeOptions::core_state.
  pto::SimCore* Core(int cluster, runtime::CoreType type, int lane);
  runtime::RuntimeOptions::CoreStateFn StateFn();
  // A runtime's options for these cores: their states, the counting hooks
  // and the cluster hooks of the pipes.
  runtime::RuntimeOptions Options();

  int clusters() const { return static_cast<int>(cores_.size() / 3); }

  // Whether the kernels run from now on check their pipe synchronization
  // (pypto/backend/pipe_hazards.h). Only while no kernel runs.
  void CheckPipeHazards(bool on);

 private:
  struct ModelledCore;  // a SimCore with its performance model

  std::vector<std::unique_ptr<ModelledCore>> cores_;                  // cluster * 3 + (0 AIC, 1 AIV0, 2 AIV1)
  std::vector<std::unique_ptr<unsigned char[]>> buffers_;       // owned storage of every core's spaces
  std::vector<std::unique_ptr<pto::SimPipe>> pipes_;                 // one per cluster
};

// The pipe figures of `platform` (throughput: in its file) for the model.
pto::PerfModel PerfFigures(const Platform& platform);

// What went wrong, with the numbers and what to do: the message of the
// runtime fault (which adds the kernel, the instruction and the line).
std::string DescribeSimFault(const pto::SimFault& fault);

}  // namespace pypto::backend

extern "C" {
__attribute__((visibility("default"))) pto::SimCore* pypto_sim_current_core();
__attribute__((visibility("default"))) void pypto_sim_finish_kernel(PyptoRtCoreContext* ctx, const char* source_file);
__attribute__((visibility("default"))) const PyptoRtCoreContext* pypto_kernel_context(void);
__attribute__((visibility("default"))) void pypto_kernel_window_fault(const char* instruction, int64_t value,
                                                                      int64_t limit);
}
