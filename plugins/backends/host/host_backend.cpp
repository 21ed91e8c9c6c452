#include "host_backend.h"

#include "dispatch.h"
#include "kernel_launcher.h"
#include "orchestration_codegen.h"

namespace pypto::host {

std::string HostBackend::name() const { return kBackendName; }

std::string HostBackend::description() const {
  return "Orchestration functions -> LLVM IR calling the runtime C API, run under ORC JIT";
}

std::vector<ir::FunctionType> HostBackend::function_types() const { return {ir::FunctionType::Orchestration}; }

std::vector<backend::Artifact> HostBackend::Generate(const ir::ProgramPtr& program, backend::BackendContext& context) {
  // One numbering for the whole program: every module submits a kernel by the same id.
  std::map<std::string, int> kernel_ids = NumberKernels(*program);
  std::vector<backend::Artifact> artifacts;
  for (const auto& function : program->functions) {
    if (function->func_type != ir::FunctionType::Orchestration) continue;
    artifacts.push_back({backend::OrchestrationPath(function->name), backend::ArtifactKind::kOrchestrationIR,
                         std::nullopt, function->name, GenerateOrchestrationModule(*program, *function, kernel_ids, context.platform())});
  }
  if (!artifacts.empty()) return artifacts;
  // No orchestration: the program's entry is a kernel, run through a launcher.
  for (const auto& function : program->functions) {
    if (!ir::IsCoreKernel(function->func_type)) continue;
    artifacts.push_back({backend::OrchestrationPath(function->name), backend::ArtifactKind::kOrchestrationIR,
                         std::nullopt, function->name,
                         GenerateKernelLauncherModule(*function, kernel_ids.at(function->name))});
  }
  return artifacts;
}

}  // namespace pypto::host
