#include <memory>

#include "allocate_memory_addr.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterAllocateMemoryAddr(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::AllocateMemoryAddrPass::kName, pypto::passes::AllocateMemoryAddrPass::kDescription,
                    [] { return std::make_unique<pypto::passes::AllocateMemoryAddrPass>(); });
}

}  // namespace

PYPTO_PLUGIN("allocate_memory_addr", "0.1.0", RegisterAllocateMemoryAddr)
