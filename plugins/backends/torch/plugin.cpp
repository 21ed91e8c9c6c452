#include <memory>

#include "pypto/plugin/abi.h"
#include "script_writer.h"
#include "torch_backend.h"

namespace {

void RegisterTorch(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddBackend(pypto::torch_codegen::kBackendName, pypto::torch_codegen::TorchBackend::kDescription,
                       [] { return std::make_unique<pypto::torch_codegen::TorchBackend>(); });
}

}  // namespace

PYPTO_PLUGIN("torch", "0.1.0", RegisterTorch)
