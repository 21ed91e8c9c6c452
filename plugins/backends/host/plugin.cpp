// Registers the host backend with the plugin host.
#include <memory>

#include "host_backend.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterHost(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddBackend("host", "orchestration functions -> LLVM IR run under ORC JIT",
                       [] { return std::make_unique<pypto::host::HostBackend>(); });
}

}  // namespace

PYPTO_PLUGIN("host", "0.1.0", RegisterHost)
