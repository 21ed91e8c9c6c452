#include "npu_backend.h"

#include <algorithm>

#include "kernel_writer.h"

namespace pypto::npu {

std::string NpuBackend::name() const { return kBackendName; }

std::vector<ir::FunctionType> NpuBackend::function_types() const {
  return {ir::FunctionType::InCore, ir::FunctionType::AIC, ir::FunctionType::AIV};
}

std::vector<backend::Artifact> NpuBackend::Generate(const ir::ProgramPtr& program, backend::BackendContext&) {
  std::vector<ir::FunctionType> handled = function_types();
  std::vector<backend::Artifact> artifacts;
  for (const auto& function : program->functions) {
    if (std::find(handled.begin(), handled.end(), function->func_type) == handled.end()) continue;
    ir::FunctionType core = backend::KernelCoreType(*function);
    artifacts.push_back({backend::KernelPath(core, function->name), backend::ArtifactKind::kKernelSource, core,
                         function->name, KernelWriter(function).Write()});
  }
  return artifacts;
}

}  // namespace pypto::npu
