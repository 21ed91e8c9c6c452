// The backend interface. A backend turns the functions of a lowered Program
// that it handles (by function type) into artifacts: files of the compile
// output layout, held in memory until WriteArtifacts puts them under an
// output folder. Backends live in plugins and are created by name through the
// BackendRegistry; nothing here depends on how a backend generates its code.
//
// Output layout (paths relative to the output folder):
//   kernels/aic/<f>.cpp, kernels/aiv/<f>.cpp, kernels/group/<f>.cpp   kernel sources
//   orchestration/<f>.ll                                             orchestration IR
//   report/<name>                                                    reports
//   debug/<name>                                                     files for debugging (scripts, listings)
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/ir.h"
#include "pypto/ir/verifier.h"
#include "pypto/support/error.h"

namespace pypto::backend {

enum class ArtifactKind {
  kKernelSource,       // the code of one core type (AIC, AIV) or one core group
  kOrchestrationIR,    // host code that submits the kernels as tasks
  kReport,             // text for the user (statistics, hints)
  kDebug,              // files for debugging the compiled program (scripts, listings)
};
const char* ArtifactKindName(ArtifactKind kind);  // "kernel source", "orchestration IR", "report", "debug"

struct Artifact {
  std::string path;  // relative to the output folder, '/'-separated: "kernels/aiv/add.cpp"
  ArtifactKind kind = ArtifactKind::kReport;
  // For kernel sources: AIC, AIV or Group. Unset for other kinds.
  std::optional<ir::FunctionType> core;
  std::string function;  // the IR function it was generated from; empty for whole-program reports
  std::string text;
};

// The standard paths of the output layout. KernelPath takes AIC, AIV or
// Group; any other function type is a ValueError.
std::string KernelPath(ir::FunctionType core, const std::string& function);   // kernels/aiv/<f>.cpp
std::string OrchestrationPath(const std::string& function);                    // orchestration/<f>.ll
std::string ReportPath(const std::string& file_name);                          // report/<file_name>
std::string DebugPath(const std::string& file_name);                           // debug/<file_name>

// The i32 an orchestration module may define: its largest sync_start grid. A simulator runs the program on at
// least that many clusters, so that all of a grid's blocks can run at once.
std::string SyncStartBlocksSymbol(const std::string& function);                // pypto_sync_start_blocks_<f>

// The state one code generation shares with its backend: the target platform,
// where the output goes (if anywhere), and the warnings the backend reports.
class BackendContext {
 public:
  BackendContext() = default;

  // Unset means Platform::kDefaultName.
  const Platform& platform() const { return platform_ ? *platform_ : Platform::Get(Platform::kDefaultName); }
  void set_platform(const Platform& platform) { platform_ = &platform; }

  // The folder the artifacts will be written to; unset when they stay in memory.
  const std::optional<std::filesystem::path>& output_dir() const { return output_dir_; }
  void set_output_dir(std::filesystem::path dir) { output_dir_ = std::move(dir); }

  // Warnings and hints from the backend, kept in the order reported.
  void Report(ir::Diagnostic diagnostic) { diagnostics_.push_back(std::move(diagnostic)); }
  const std::vector<ir::Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  const Platform* platform_ = nullptr;
  std::optional<std::filesystem::path> output_dir_;
  std::vector<ir::Diagnostic> diagnostics_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // The function types this backend generates code for; the functions of
  // other types in the program are another backend's.
  virtual std::vector<ir::FunctionType> function_types() const = 0;
  // Artifacts for the program's functions of function_types(). Something the
  // backend cannot translate is a CodegenError (MakeCodegenError).
  virtual std::vector<Artifact> Generate(const ir::ProgramPtr& program, BackendContext& ctx) = 0;
};

using BackendFactory = std::function<std::unique_ptr<Backend>()>;

// The core a kernel function runs on: AIC or AIV as declared, and for an
// InCore function AIC when any tile of it lives in a cube space (Mat, Left,
// Right, Acc, Bias), else AIV. The NPU and host backends agree through it on
// where kernels go (kernels/aic|aiv/) and what the orchestration submits.
// Any other function type is a ValueError.
ir::FunctionType KernelCoreType(const ir::Function& function);

// "backend 'npu': in function 'f': op 'tile.exp': <message>", located at `span`:
// the error a backend raises for what it cannot translate. `op` may be empty.
Error MakeCodegenError(const std::string& backend, const std::string& function, const std::string& op,
                       const std::string& message, const Span& span = Span());

// Runs `backend` and checks what it returned (CheckArtifacts); an exception
// other than a pypto::Error becomes an InternalError naming the backend.
std::vector<Artifact> RunBackend(Backend& backend, const ir::ProgramPtr& program, BackendContext& ctx);

// A ValueError naming `backend` when an artifact's path is empty, absolute,
// leaves its folder (".."), is used twice, or does not fit its kind (kernel
// sources under kernels/aic|aiv|group/ matching their core, orchestration IR
// under orchestration/, reports under report/, debug files under debug/).
void CheckArtifacts(const std::string& backend, const std::vector<Artifact>& artifacts);

// Writes each artifact to output_dir/path, creating folders. Each file is
// written to a temporary name in its folder and renamed, so a reader never
// sees half a file. A path that is empty, absolute or climbs out of
// output_dir ("..") is a ValueError, raised before anything is written; a
// file that cannot be written is an OSError naming it. Returns the files
// written, in the artifacts' order.
std::vector<std::filesystem::path> WriteArtifacts(const std::filesystem::path& output_dir,
                                                  const std::vector<Artifact>& artifacts);

}  // namespace pypto::backend
