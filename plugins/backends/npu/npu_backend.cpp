#include "npu_backend.h"

#include <algorithm>

#include "external_kernel.h"
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
    auto external = ExternalSourceOf(*function);
    std::string text = external ? ExternalKernelWrapper(*function, *external) : KernelWriter(function).Write();
    artifacts.push_back({backend::KernelPath(core, function->name), backend::ArtifactKind::kKernelSource, core,
                         function->name, std::move(text)});
  }
  return artifacts;
}

}  // namespace pypto::npu
