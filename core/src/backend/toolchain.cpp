#include "pypto/backend/toolchain.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "pypto/backend/simulator.h"
#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"
#include "pypto/plugin/host.h"
#include "pypto/runtime/c_api_host.h"
#include "pypto/support/strings.h"

namespace pypto::backend {
namespace fs = std::filesystem;

namespace {

using OrchestrationFn = int32_t(PyptoRtContext*);

std::string KernelSymbol(const std::string& function) { return "pypto_kernel_" + function; }
std::string OrchestrationSymbol(const std::string& function) { return "pypto_orchestration_" + function; }

// One compiler per cache folder, shared by every build of the process so its
// statistics and Clang's one-time setup are paid once.
jit::CxxCompiler& CompilerFor(const BuildOptions& options) {
  static std::mutex mutex;
  // Leaked like the plugins: nothing is torn down at exit.
  static auto* compilers = new std::map<std::string, std::unique_ptr<jit::CxxCompiler>>();
  std::optional<fs::path> dir;
  if (options.use_cache) dir = options.cache_dir ? *options.cache_dir : jit::ObjectCache::DefaultDirectory();
  std::string key = dir ? dir->string() : std::string();
  std::lock_guard lock(mutex);
  auto& compiler = (*compilers)[key];
  if (!compiler) compiler = std::make_unique<jit::CxxCompiler>(dir);
  return *compiler;
}

// The simulated chip of one platform: its cores and the runtime's workers.
// Kept for the process; runs on it take turns (a runtime runs one context at
// a time).
struct SimulatedChip {
  SimulatedChip(const Platform& platform, int clusters)
      : clusters(clusters),
        cores(platform, this->clusters),
        runtime(cores.Options()) {}

  int clusters;
  SimulatedCores cores;
  runtime::Runtime runtime;
  std::mutex run_mutex;
};

// The simulated clusters of a build: as asked (one per hardware thread by default), and at least a
// sync_start grid's blocks, which must all run at once.
int ClustersFor(const BuildOptions& options, int sync_start_blocks) {
  const int asked = options.clusters > 0 ? options.clusters
                                         : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return std::max(asked, sync_start_blocks);
}

SimulatedChip& ChipFor(const std::string& platform, int clusters) {
  static std::mutex mutex;
  // Leaked: worker threads must not be joined during static destruction.
  static auto* chips = new std::map<std::pair<std::string, int>, std::unique_ptr<SimulatedChip>>();
  std::lock_guard lock(mutex);
  auto& chip = (*chips)[{platform, clusters}];
  if (!chip) chip = std::make_unique<SimulatedChip>(Platform::Get(platform), clusters);
  return *chip;
}

jit::CompileOptions KernelCompileOptions(const Artifact& kernel, const BuildOptions& build) {
  jit::CompileOptions options;
  options.name = kernel.path;
  options.std = "c++20";
  options.freestanding = true;
  options.include_dirs = KernelIncludeDirs();
  auto extra = build.kernel_include_dirs.find(kernel.function);
  if (extra != build.kernel_include_dirs.end()) {
    options.include_dirs.insert(options.include_dirs.end(), extra->second.begin(), extra->second.end());
  }
  options.defines = {"kernel_entry=" + KernelSymbol(kernel.function)};
  if (build.check_nan) options.defines.push_back("PTO_CHECK_NAN=1");
  // Lets TSQRT and friends vectorize; results stay IEEE (no -ffast-math).
  // Clang vectorizes for 256-bit registers even where AVX-512 has 512-bit
  // ones; tile loops are long and aligned, so the wide ones pay.
  options.extra_flags = {"-fno-math-errno", "-mprefer-vector-width=512"};
  return options;
}

class SimulatedExecutable : public Executable {
 public:
  SimulatedExecutable(SimulatedChip& chip, std::unique_ptr<jit::JitSession> session,
                      std::map<std::string, OrchestrationFn*> entries, BuildStats stats)
      : chip_(chip), session_(std::move(session)), entries_(std::move(entries)), stats_(stats) {}

  std::vector<std::string> entries() const override {
    std::vector<std::string> names;
    for (const auto& [name, fn] : entries_) names.push_back(name);
    return names;
  }

  BuildStats build_stats() const override { return stats_; }

  std::vector<runtime::Tensor> Run(const std::string& entry, const std::vector<ProgramArg>& args) override {
    OrchestrationFn* fn = Entry(entry);
    std::lock_guard lock(chip_.run_mutex);
    return RunLocked(entry, fn, args);
  }

  std::vector<runtime::Tensor> RunTraced(const std::string& entry, const std::vector<ProgramArg>& args,
                                         runtime::RunTrace& trace, const TraceOptions& options) override {
    OrchestrationFn* fn = Entry(entry);
    std::lock_guard lock(chip_.run_mutex);
    // The chip's runtime is shared by every program of the platform: tracing
    // is on for this run only, also when it throws.
    struct TracingOn {
      runtime::Runtime& rt;
      TracingOn(runtime::Runtime& r, runtime::ArgsDump dump) : rt(r) {
        rt.SetTracing(true);
        rt.SetArgsDump(dump);
      }
      ~TracingOn() {
        rt.SetTracing(false);
        rt.SetArgsDump(runtime::ArgsDump::Off);
      }
    } tracing(chip_.runtime, options.args_dump);
    auto results = RunLocked(entry, fn, args);
    trace = chip_.runtime.LastRunTrace();
    return results;
  }

 private:
  OrchestrationFn* Entry(const std::string& entry) const {
    auto it = entries_.find(entry);
    if (it == entries_.end()) {
      ThrowValueError("the program has no orchestration function '" + entry + "'; it has " + Join(entries(), ", "));
    }
    return it->second;
  }

  // chip_.run_mutex must be held.
  std::vector<runtime::Tensor> RunLocked(const std::string& entry, OrchestrationFn* fn,
                                         const std::vector<ProgramArg>& args) {
    PyptoRtContext* ctx = runtime::CreateContext(chip_.runtime);
    try {
      for (size_t i = 0; i < args.size(); ++i) Bind(ctx, static_cast<int32_t>(i), args[i]);
      int32_t status = fn(ctx);
      chip_.runtime.WaitAll();
      if (status != 0 || pypto_rt_error(ctx) != nullptr) ThrowRunError(entry, ctx);
      auto results = CollectResults(entry, ctx);
      pypto_rt_context_destroy(ctx);
      return results;
    } catch (...) {
      pypto_rt_context_destroy(ctx);
      throw;
    }
  }

  static void Bind(PyptoRtContext* ctx, int32_t index, const ProgramArg& arg) {
    if (arg.tensor) {
      runtime::BindTensor(ctx, index, *arg.tensor);
    } else {
      pypto_rt_bind_scalar(ctx, index, arg.scalar);
    }
  }

  [[noreturn]] static void ThrowRunError(const std::string& entry, PyptoRtContext* ctx) {
    const char* error = pypto_rt_error(ctx);
    throw Error(ErrorKind::kRuntime, "orchestration '" + entry + "' failed: " +
                                         (error ? std::string(error) : std::string("it returned a nonzero status")));
  }

  static std::vector<runtime::Tensor> CollectResults(const std::string& entry, PyptoRtContext* ctx) {
    std::vector<runtime::Tensor> results;
    for (const auto& [index, tensor] : runtime::Results(ctx)) {
      if (index != static_cast<int32_t>(results.size())) {
        ThrowInternalError("orchestration '" + entry + "' set result " + std::to_string(index) + " but not result " +
                           std::to_string(results.size()));
      }
      results.push_back(tensor);
    }
    return results;
  }

  SimulatedChip& chip_;
  std::unique_ptr<jit::JitSession> session_;
  std::map<std::string, OrchestrationFn*> entries_;
  BuildStats stats_;
};

class SimulatorToolchain : public Toolchain {
 public:
  std::string name() const override { return "simulator"; }
  std::string Unavailable() const override { return {}; }

  std::unique_ptr<Executable> Build(const std::vector<Artifact>& artifacts, const BuildOptions& options) override {
    auto start = std::chrono::steady_clock::now();
    auto session = std::make_unique<jit::JitSession>();
    BuildStats stats;
    for (const auto& object : CompileKernels(artifacts, options)) {
      ++stats.kernels;
      if (object.from_cache) ++stats.from_cache;
      session->AddObject(object);
    }
    std::vector<std::string> orchestrations;
    for (const auto& artifact : artifacts) {
      if (artifact.kind != ArtifactKind::kOrchestrationIR) continue;
      session->AddModuleText(artifact.path, artifact.text);
      orchestrations.push_back(artifact.function);
    }
    // Looking the entries up links everything now, so that an unresolved
    // kernel symbol is a build error rather than a failure of the first run.
    std::map<std::string, OrchestrationFn*> entries;
    int sync_start_blocks = 0;
    for (const auto& function : orchestrations) {
      entries[function] = session->LookupFunction<OrchestrationFn>(OrchestrationSymbol(function));
      // Absent from launcher modules and from outputs written before the symbol existed.
      if (const auto* blocks = static_cast<const int32_t*>(session->Find(SyncStartBlocksSymbol(function)))) {
        sync_start_blocks = std::max(sync_start_blocks, *blocks);
      }
    }
    stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return std::make_unique<SimulatedExecutable>(ChipFor(options.platform, ClustersFor(options, sync_start_blocks)),
                                                 std::move(session), std::move(entries), stats);
  }

 private:
  // Kernels compile concurrently (one Clang instance each); the objects come
  // back in artifact order so that the session is built the same way every time.
  static std::vector<jit::CompiledObject> CompileKernels(const std::vector<Artifact>& artifacts,
                                                         const BuildOptions& options) {
    jit::CxxCompiler& compiler = CompilerFor(options);
    std::vector<std::future<jit::CompiledObject>> pending;
    for (const auto& artifact : artifacts) {
      if (artifact.kind != ArtifactKind::kKernelSource) continue;
      pending.push_back(std::async(std::launch::async, [&compiler, &artifact, &options] {
        return compiler.Compile(artifact.text, KernelCompileOptions(artifact, options));
      }));
    }
    std::vector<jit::CompiledObject> objects;
    std::exception_ptr first_error;
    for (auto& future : pending) {
      try {
        objects.push_back(future.get());
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    if (first_error) std::rethrow_exception(first_error);
    return objects;
  }
};

// Real Ascend NPUs: the generated sources are what the CANN toolchain builds;
// this machine can only write them.
class AscendToolchain : public Toolchain {
 public:
  std::string name() const override { return "ascend"; }

  std::string Unavailable() const override {
    const char* home = std::getenv("ASCEND_HOME_PATH");
    std::string found = home && *home ? std::string("ASCEND_HOME_PATH is '") + home + "' but " : std::string();
    return found +
           "running on a real Ascend NPU needs the Ascend CANN toolchain (bisheng/ccec, set up by its set_env.sh, "
           "which sets ASCEND_HOME_PATH) and an NPU device, and PyPTO does not drive CANN builds yet; the kernel and "
           "orchestration sources were written to the output folder for that toolchain. To run here, use the "
           "simulator: RunConfig(platform='a2a3sim') (or 'a5sim')";
  }

  std::unique_ptr<Executable> Build(const std::vector<Artifact>&, const BuildOptions& options) override {
    throw Error(ErrorKind::kRuntime, "platform '" + options.platform + "' cannot run on this machine: " + Unavailable());
  }
};

bool HasKernelHeaders(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "pypto/isa/kernel_abi.h", ec) && fs::is_regular_file(dir / "pypto/runtime/c_api.h", ec);
}

}  // namespace

std::vector<runtime::Tensor> Executable::RunTraced(const std::string&, const std::vector<ProgramArg>&,
                                                   runtime::RunTrace&, const TraceOptions&) {
  throw Error(ErrorKind::kRuntime,
              "this toolchain cannot trace a run, so the runtime DFX outputs (RunConfig enable_chip_swimlane, "
              "enable_pmu, enable_dep_gen, enable_scope_stats, enable_dump_args) are unavailable here; run on a "
              "simulator platform (RunConfig(platform='a2a3sim') or 'a5sim') to get them");
}

Toolchain& GetToolchain(const std::string& name) {
  static SimulatorToolchain simulator;
  static AscendToolchain ascend;
  if (name == simulator.name()) return simulator;
  if (name == ascend.name()) return ascend;
  ThrowValueError("unknown toolchain '" + name + "'; the toolchains are " + Join(ToolchainNames(), ", ") +
                  " (a backend's manifest names one per platform under 'toolchains')");
}

std::vector<std::string> ToolchainNames() { return {"ascend", "simulator"}; }

std::string ToolchainFor(const std::string& backend, const std::string& platform) {
  auto provider = plugin::PluginHost::Global().FindProvider(backend, "backend");
  if (!provider) ThrowValueError("no plugin provides backend '" + backend + "'; see `pypto backends`");
  const auto& toolchains = provider->manifest.toolchains;
  auto it = toolchains.find(platform);
  if (it == toolchains.end()) {
    std::vector<std::string> platforms;
    for (const auto& [name, toolchain] : toolchains) platforms.push_back(name);
    ThrowValueError("backend '" + backend + "' (" + provider->manifest.manifest_path.string() +
                    ") names no toolchain for platform '" + platform + "'; it has toolchains for " +
                    (platforms.empty() ? std::string("no platform") : Join(platforms, ", ")) +
                    ". Add `toolchains: {" + platform + ": <toolchain>}` to its manifest");
  }
  return it->second;
}

std::vector<fs::path> KernelIncludeDirs() {
  fs::path installed = (plugin::CoreLibraryDir() / ".." / "include").lexically_normal();
  if (HasKernelHeaders(installed)) return {installed};
  return {fs::path(PYPTO_SOURCE_SDK_INCLUDE_DIR), fs::path(PYPTO_SOURCE_CORE_INCLUDE_DIR)};
}

}  // namespace pypto::backend
