#include "pypto/backend/backend.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <system_error>

#include "pypto/ir/visitor.h"
#include "pypto/support/strings.h"

namespace pypto::backend {
namespace fs = std::filesystem;

namespace {

// The folder of the output layout each kind of artifact belongs in.
std::string KindFolder(const Artifact& artifact) {
  switch (artifact.kind) {
    case ArtifactKind::kKernelSource: {
      if (!artifact.core) return "kernels/";
      switch (*artifact.core) {
        case ir::FunctionType::AIC: return "kernels/aic/";
        case ir::FunctionType::AIV: return "kernels/aiv/";
        case ir::FunctionType::Group: return "kernels/group/";
        default: return "kernels/";
      }
    }
    case ArtifactKind::kOrchestrationIR: return "orchestration/";
    case ArtifactKind::kReport: return "report/";
    case ArtifactKind::kDebug: return "debug/";
  }
  return "";
}

bool IsKernelCore(ir::FunctionType type) {
  return type == ir::FunctionType::AIC || type == ir::FunctionType::AIV || type == ir::FunctionType::Group;
}

// Why `path` may not be written under an output folder, or empty when it may.
std::string PathProblem(const std::string& path) {
  if (path.empty()) return "the path is empty";
  fs::path p(path);
  if (p.has_root_directory() || p.has_root_name()) {
    return "the path '" + path + "' is absolute; artifact paths are relative to the output folder";
  }
  for (const auto& part : p) {
    if (part == "..") return "the path '" + path + "' climbs out of the output folder with '..'";
  }
  if (!p.has_filename()) return "the path '" + path + "' names a folder, not a file";
  return "";
}

std::string ArtifactProblem(const Artifact& artifact) {
  if (auto problem = PathProblem(artifact.path); !problem.empty()) return problem;
  const char* kind = ArtifactKindName(artifact.kind);
  if (artifact.kind == ArtifactKind::kKernelSource) {
    if (!artifact.core || !IsKernelCore(*artifact.core)) {
      return "the " + std::string(kind) + " '" + artifact.path + "' has no core type; set Artifact::core to AIC, AIV or Group";
    }
  } else if (artifact.core) {
    return "the " + std::string(kind) + " '" + artifact.path + "' sets a core type (" + ir::ToString(*artifact.core) +
           "), which only kernel sources have";
  }
  std::string folder = KindFolder(artifact);
  if (artifact.path.rfind(folder, 0) != 0) {
    return "the " + std::string(kind) + " '" + artifact.path + "' must lie under " + folder + " of the output folder";
  }
  return "";
}

[[noreturn]] void ThrowWriteError(const fs::path& file, const std::string& reason) {
  throw Error(ErrorKind::kIO, "cannot write artifact " + file.string() + ": " + reason +
                                  "; check that the output folder is writable and the disk is not full");
}

// A name in the target's folder, unique within this process.
fs::path TemporaryName(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(getpid()) + "." +
                                 std::to_string(counter++));
}

void WriteAtomically(const fs::path& target, const std::string& text) {
  fs::path temporary = TemporaryName(target);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) ThrowWriteError(target, std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      ThrowWriteError(target, "writing failed");
    }
  }
  std::error_code ec;
  fs::rename(temporary, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    ThrowWriteError(target, ec.message());
  }
}

bool IsInside(const fs::path& inner, const fs::path& outer) {
  auto [outer_end, inner_it] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return outer_end == outer.end();
}

// Finds whether a function defines a tile in a cube memory space.
class CubeSpaceFinder : public ir::IRVisitor {
 public:
  bool found = false;

  void VisitVarDef(const ir::VarPtr& var) override {
    if (auto tile = ir::As<ir::TileType>(var->type); tile && tile->memory_space && IsCube(*tile->memory_space)) {
      found = true;
    }
    ir::IRVisitor::VisitVarDef(var);
  }

 private:
  static bool IsCube(ir::MemorySpace space) {
    return space == ir::MemorySpace::Mat || space == ir::MemorySpace::Left || space == ir::MemorySpace::Right ||
           space == ir::MemorySpace::Acc || space == ir::MemorySpace::Bias;
  }
};

}  // namespace

ir::FunctionType KernelCoreType(const ir::Function& function) {
  switch (function.func_type) {
    case ir::FunctionType::AIC:
    case ir::FunctionType::AIV:
      return function.func_type;
    case ir::FunctionType::InCore: {
      CubeSpaceFinder finder;
      for (const auto& param : function.params) finder.VisitVarDef(param);
      if (function.body) finder.VisitStmt(function.body);
      return finder.found ? ir::FunctionType::AIC : ir::FunctionType::AIV;
    }
    default:
      ThrowValueError("KernelCoreType: function '" + function.name + "' is " +
                      std::string(ir::ToString(function.func_type)) + ", not a kernel (InCore, AIC or AIV)");
  }
}

const char* ArtifactKindName(ArtifactKind kind) {
  switch (kind) {
    case ArtifactKind::kKernelSource: return "kernel source";
    case ArtifactKind::kOrchestrationIR: return "orchestration IR";
    case ArtifactKind::kReport: return "report";
    case ArtifactKind::kDebug: return "debug file";
  }
  return "artifact";
}

std::string KernelPath(ir::FunctionType core, const std::string& function) {
  if (!IsKernelCore(core)) {
    ThrowValueError("KernelPath: function '" + function + "' is of type " + ir::ToString(core) +
                    "; kernel sources exist for AIC, AIV and Group functions");
  }
  Artifact probe;
  probe.kind = ArtifactKind::kKernelSource;
  probe.core = core;
  return KindFolder(probe) + function + ".cpp";
}

std::string OrchestrationPath(const std::string& function) { return "orchestration/" + function + ".ll"; }
std::string ReportPath(const std::string& file_name) { return "report/" + file_name; }
std::string DebugPath(const std::string& file_name) { return "debug/" + file_name; }
std::string SyncStartBlocksSymbol(const std::string& function) { return "pypto_sync_start_blocks_" + function; }

Error MakeCodegenError(const std::string& backend, const std::string& function, const std::string& op,
                       const std::string& message, const Span& span) {
  std::string where = "backend '" + backend + "'";
  if (!function.empty()) where += ": in function '" + function + "'";
  if (!op.empty()) where += ": op '" + op + "'";
  return Error(ErrorKind::kCodegen, where + ": " + message, span);
}

void CheckArtifacts(const std::string& backend, const std::vector<Artifact>& artifacts) {
  std::vector<std::string> problems;
  std::set<std::string> seen;
  for (const auto& artifact : artifacts) {
    if (auto problem = ArtifactProblem(artifact); !problem.empty()) {
      problems.push_back(problem);
    } else if (!seen.insert(fs::path(artifact.path).lexically_normal().string()).second) {
      problems.push_back("two artifacts have the path '" + artifact.path + "'");
    }
  }
  if (problems.empty()) return;
  ThrowValueError("backend '" + backend + "' returned artifacts that do not fit the output layout: " +
                  Join(problems, "; "));
}

std::vector<Artifact> RunBackend(Backend& backend, const ir::ProgramPtr& program, BackendContext& ctx) {
  std::string name = backend.name();
  std::vector<Artifact> artifacts;
  try {
    artifacts = backend.Generate(program, ctx);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    ThrowInternalError("backend '" + name + "' failed on program '" + program->name + "': " + e.what() +
                       "; a backend reports what it cannot translate with MakeCodegenError");
  }
  CheckArtifacts(name, artifacts);
  return artifacts;
}

std::vector<fs::path> WriteArtifacts(const fs::path& output_dir, const std::vector<Artifact>& artifacts) {
  for (const auto& artifact : artifacts) {
    if (auto problem = PathProblem(artifact.path); !problem.empty()) {
      ThrowValueError("WriteArtifacts: cannot write a " + std::string(ArtifactKindName(artifact.kind)) + " under " +
                      output_dir.string() + ": " + problem + " (paths look like kernels/aiv/<function>.cpp)");
    }
  }
  std::error_code ec;
  fs::create_directories(output_dir, ec);
  if (ec) ThrowWriteError(output_dir, ec.message());
  fs::path root = fs::canonical(output_dir, ec);
  if (ec) ThrowWriteError(output_dir, ec.message());
  std::vector<fs::path> written;
  for (const auto& artifact : artifacts) {
    fs::path target = output_dir / fs::path(artifact.path).lexically_normal();
    fs::create_directories(target.parent_path(), ec);
    if (ec) ThrowWriteError(target, ec.message());
    // A symbolic link inside the output folder may still lead out of it.
    fs::path folder = fs::canonical(target.parent_path(), ec);
    if (ec) ThrowWriteError(target, ec.message());
    if (!IsInside(folder, root)) {
      ThrowValueError("WriteArtifacts: the path '" + artifact.path + "' leads out of " + output_dir.string() +
                      " through a symbolic link (to " + folder.string() + "); remove the link");
    }
    WriteAtomically(target, artifact.text);
    written.push_back(target);
  }
  return written;
}

}  // namespace pypto::backend
