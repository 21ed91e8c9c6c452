// ProgramStats: a backend that generates no code but a report of the
// kernels it is given, report/program_stats.txt:
//
//   program _jit_blend for a2a3
//
//   kernel blend_incore_0 (InCore, on AIV)
//     ops: 5
//       tile.add    1
//       ...
//     on-chip memory:
//       Vec    2 buffers  16384 of 196608 bytes (8.3%)   4 tiles
//
// "buffers" are the tile.alloc allocations the memory planner made, with
// their bytes against the platform's capacity; "tiles" are the tile values
// the kernel defines in that space (several share a buffer after reuse).
//
// This file is the whole plugin: the backend class, and the registration
// the core calls when it loads the library (PYPTO_PLUGIN at the bottom).
#include <cstdint>
#include <iomanip>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/ir/visitor.h"
#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

constexpr const char* kBackendName = "program_stats";
constexpr const char* kDescription = "Reports ops per kernel and on-chip memory per memory space";
constexpr const char* kReportFile = "program_stats.txt";

struct SpaceUse {
  int buffers = 0;
  int64_t buffer_bytes = 0;
  int tiles = 0;
};

struct KernelStats {
  std::map<std::string, int> ops;  // op name -> how often it is called
  std::map<ir::MemorySpace, SpaceUse> spaces;
};

// Walks one kernel function and counts what the report shows.
class StatsCollector : public ir::IRVisitor {
 public:
  KernelStats stats;

  void Visit_(const ir::Ref<ir::Call>& call) override {
    if (!call->is_function_call()) ++stats.ops[call->callee_name()];
    if (call->callee_name() == "tile.alloc") CountBuffer(*call);
    ir::IRVisitor::Visit_(call);
  }

  void VisitVarDef(const ir::VarPtr& var) override {
    auto tile = ir::As<ir::TileType>(var->type);
    if (tile && tile->memory_space) ++stats.spaces[*tile->memory_space].tiles;
    ir::IRVisitor::VisitVarDef(var);
  }

 private:
  // `pl.tile.alloc(bytes, memory_space=...)`: its result is a pointer into that space.
  void CountBuffer(const ir::Call& alloc) {
    auto pointer = ir::As<ir::PtrType>(alloc.type);
    std::optional<int64_t> bytes = alloc.args.empty() ? std::nullopt : ir::AsConstInt(alloc.args[0]);
    if (!pointer || !pointer->memory_space || !bytes) return;
    SpaceUse& use = stats.spaces[*pointer->memory_space];
    ++use.buffers;
    use.buffer_bytes += *bytes;
  }
};

std::string Percent(int64_t part, int64_t whole) {
  std::ostringstream text;
  text << std::fixed << std::setprecision(1) << 100.0 * static_cast<double>(part) / static_cast<double>(whole) << "%";
  return text.str();
}

void WriteSpace(std::ostringstream& out, ir::MemorySpace space, const SpaceUse& use,
                const backend::Platform& platform) {
  out << "    " << std::left << std::setw(6) << ir::ToString(space) << std::right << std::setw(3) << use.buffers
      << " buffers " << std::setw(8) << use.buffer_bytes;
  if (platform.HasSpace(space)) {
    int64_t capacity = platform.Capacity(space);
    out << " of " << capacity << " bytes (" << Percent(use.buffer_bytes, capacity) << ")";
  } else {
    out << " bytes";
  }
  out << "  " << use.tiles << " tiles\n";
}

void WriteKernel(std::ostringstream& out, const ir::Function& kernel, const KernelStats& stats,
                 const backend::Platform& platform) {
  int total = 0;
  for (const auto& [op, count] : stats.ops) total += count;
  out << "\nkernel " << kernel.name << " (" << ir::ToString(kernel.func_type) << ", on "
      << ir::ToString(backend::KernelCoreType(kernel)) << ")\n";
  out << "  ops: " << total << "\n";
  for (const auto& [op, count] : stats.ops) out << "    " << std::left << std::setw(24) << op << count << "\n";
  out << "  on-chip memory:\n";
  for (const auto& [space, use] : stats.spaces) WriteSpace(out, space, use, platform);
}

class ProgramStats : public backend::Backend {
 public:
  std::string name() const override { return kBackendName; }
  std::string description() const override { return kDescription; }
  // The kernel functions; the orchestration always goes to the host backend.
  std::vector<ir::FunctionType> function_types() const override {
    return {ir::FunctionType::InCore, ir::FunctionType::AIC, ir::FunctionType::AIV};
  }

  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override {
    std::ostringstream report;
    report << "program " << program->name << " for " << ctx.platform().name << "\n";
    for (const auto& function : program->functions) {
      if (!IsKernel(*function)) continue;
      StatsCollector collector;
      collector.VisitFunction(function);
      WriteKernel(report, *function, collector.stats, ctx.platform());
    }
    return {{backend::ReportPath(kReportFile), backend::ArtifactKind::kReport, std::nullopt, "", report.str()}};
  }

 private:
  bool IsKernel(const ir::Function& function) const {
    for (ir::FunctionType type : function_types()) {
      if (function.func_type == type) return true;
    }
    return false;
  }
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddBackend(kBackendName, kDescription, [] { return std::make_unique<ProgramStats>(); });
}

}  // namespace

// The plugin's name (the manifest's `name:`, the CMake target's name), its
// version (the project's, from CMakeLists.txt), and the function that registers its backends.
PYPTO_PLUGIN("program_stats", PLUGIN_VERSION, Register)
