#include <memory>

#include "host_writer.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterPldHost(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddBackend(pypto::pld_host::kBackendName, pypto::pld_host::PldHostBackend::kDescription,
                       [] { return std::make_unique<pypto::pld_host::PldHostBackend>(); });
}

}  // namespace

PYPTO_PLUGIN("pld_host", "0.1.0", RegisterPldHost)
