// Toolchains: what turns a program's artifacts (kernel sources, orchestration
// IR) into something that runs, per platform.
//
//   simulator  a2a3sim, a5sim. Each kernel source is compiled in-process with
//              Clang's libraries against the SDK's tile ISA (cached on disk),
//              each orchestration module is parsed from its .ll text, and all
//              of them are linked into one ORC JIT session. Running calls the
//              orchestration entry on the runtime, whose cores are simulated
//              (SimulatedCores, capacities from the platform file).
//   ascend     a2a3, a5. Needs the Ascend CANN toolchain and a device; where
//              they are missing Unavailable() says so and Build refuses.
//
// A backend plugin's manifest names the toolchain of each platform
// (`toolchains: {a2a3sim: simulator, ...}`); ToolchainFor reads it.
//
// The ABI between the artifacts and the toolchain:
//   * kernels/<core>/<f>.cpp is PTO-ISA C++ (<pto/pto-inst.hpp>) defining
//     `extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args)`, the
//     entry of the Ascend toolchain and the upstream runtime (the slots are
//     described in pypto/runtime/kernel_args.h). The simulator compiles it
//     with -Dkernel_entry=pypto_kernel_<f>_entry and an appended adapter
//     `pypto_kernel_<f>(const int64_t* args, PyptoRtCoreContext* ctx)`,
//     the runtime's PyptoRtKernelFn, which reports the core's fault after it.
//   * orchestration/<f>.ll defines `i32 @pypto_orchestration_<f>(ptr %ctx)`.
//     It registers the kernels it submits (pypto_rt_set_kernel with
//     @pypto_kernel_<k>), reads argument i of the function with
//     pypto_rt_arg_tensor / pypto_rt_arg_scalar(ctx, i), sets its return
//     values with pypto_rt_set_result, and returns 0 (nonzero after a failed
//     runtime call). The toolchain waits for the tasks after it returns.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/runtime/tensor.h"
#include "pypto/runtime/trace.h"

namespace pypto::backend {

// One argument of an orchestration function, in parameter order. A scalar is
// passed as the bits of its value in its dtype (integers sign-extended, FP32
// as its 32 bits), the same rule as kernel scalar slots.
struct ProgramArg {
  std::optional<runtime::Tensor> tensor;
  int64_t scalar = 0;

  static ProgramArg OfTensor(runtime::Tensor t) { return ProgramArg{std::move(t), 0}; }
  static ProgramArg OfScalar(int64_t bits) { return ProgramArg{std::nullopt, bits}; }
};

struct BuildOptions {
  std::string platform = Platform::kDefaultName;
  // Where compiled kernel objects are cached; unset: ObjectCache::DefaultDirectory().
  std::optional<std::filesystem::path> cache_dir;
  bool use_cache = true;
  // Simulated clusters, i.e. worker threads; <= 0: one per hardware thread.
  int clusters = 0;
  // Simulator only: every tile instruction checks its result for NaN and the
  // first one found is a kernel fault (kernels compiled with PTO_CHECK_NAN).
  bool check_nan = false;
  // Simulator only: kernels compiled with PTO_CHECK_PIPE_HAZARDS report
  // their pipes and accesses, and the runs check every kernel's pipe
  // synchronization (pypto/backend/pipe_hazards.h); a missing event is a
  // kernel fault.
  bool check_pipe_hazards = false;
  // Further #include folders of a kernel, by the function it was generated
  // from: an external kernel's include_dirs= (absolute paths). They follow the
  // SDK's headers on the command line, so they enter the object cache key.
  std::map<std::string, std::vector<std::filesystem::path>> kernel_include_dirs;
};

// What building a kernel cost; from_cache counts objects read from disk.
struct BuildStats {
  int kernels = 0;
  int from_cache = 0;
  double seconds = 0;
};

// What a traced run records besides tasks, timings and counters.
struct TraceOptions {
  runtime::ArgsDump args_dump = runtime::ArgsDump::Off;
};

class Executable {
 public:
  virtual ~Executable() = default;
  // The orchestration functions it can run.
  virtual std::vector<std::string> entries() const = 0;
  // Runs orchestration `entry` on `args` and waits for its tasks. Returns its
  // results in index order. A kernel fault is a pypto::Error (kRuntime)
  // naming the kernel, the instruction and the user's source line; the
  // executable stays usable for the next run.
  virtual std::vector<runtime::Tensor> Run(const std::string& entry, const std::vector<ProgramArg>& args) = 0;
  // Runs like Run and fills `trace` with what the runtime did: tasks,
  // arguments, dependencies and per-core timings (the DFX outputs are written
  // from it). Only this call records them, so Run pays nothing for tracing.
  // `options` say what else the trace holds (argument dumps). A toolchain
  // whose runs cannot be traced throws a kRuntime error saying so.
  virtual std::vector<runtime::Tensor> RunTraced(const std::string& entry, const std::vector<ProgramArg>& args,
                                                 runtime::RunTrace& trace, const TraceOptions& options = {});
  virtual BuildStats build_stats() const = 0;
};

class Toolchain {
 public:
  virtual ~Toolchain() = default;
  virtual std::string name() const = 0;
  // Empty when the toolchain can build and run here; otherwise what is
  // missing and what to install.
  virtual std::string Unavailable() const = 0;
  // Compiles and links the artifacts (only kernel sources and orchestration
  // IR are used). A kernel that does not compile is a kCompile error naming
  // its file and line.
  virtual std::unique_ptr<Executable> Build(const std::vector<Artifact>& artifacts, const BuildOptions& options) = 0;
};

// "simulator" or "ascend"; another name is a ValueError listing them.
Toolchain& GetToolchain(const std::string& name);
std::vector<std::string> ToolchainNames();

// The toolchain the manifest of the plugin providing backend `backend`
// names for `platform`; a ValueError when it names none.
std::string ToolchainFor(const std::string& backend, const std::string& platform);

// The folders kernels compile against on the simulator: the SDK's and the
// core's public headers, from the install prefix or else the source tree.
std::vector<std::filesystem::path> KernelIncludeDirs();

// A kernel artifact's source as the simulator toolchain compiles it (with
// -Dkernel_entry=pypto_kernel_<f>_entry): the text and the adapter
// pypto_kernel_<f>(args, ctx) that runs its kernel_entry and reports the
// core's fault with the user's file (a generated kernel's first line names
// it; an external kernel's #include does; else the artifact's path).
std::string SimulatedKernelSource(const Artifact& kernel);

}  // namespace pypto::backend
