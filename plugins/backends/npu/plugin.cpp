#include <memory>

#include "kernel_writer.h"
#include "npu_backend.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterNpu(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddBackend(pypto::npu::kBackendName, pypto::npu::NpuBackend::kDescription,
                       [] { return std::make_unique<pypto::npu::NpuBackend>(); });
}

}  // namespace

PYPTO_PLUGIN("npu", "0.1.0", RegisterNpu)
