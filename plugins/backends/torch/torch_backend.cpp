#include "torch_backend.h"

#include "script_writer.h"

namespace pypto::torch_codegen {

std::string TorchBackend::name() const { return kBackendName; }

std::vector<ir::FunctionType> TorchBackend::function_types() const {
  std::vector<ir::FunctionType> all;
  for (const auto& [type, name] : ir::EnumInfo<ir::FunctionType>::Values()) all.push_back(type);
  return all;
}

std::vector<backend::Artifact> TorchBackend::Generate(const ir::ProgramPtr& program, backend::BackendContext&) {
  return {{backend::DebugPath(program->name + "_torch.py"), backend::ArtifactKind::kDebug, std::nullopt, "",
           ScriptWriter(program).Write()}};
}

}  // namespace pypto::torch_codegen
