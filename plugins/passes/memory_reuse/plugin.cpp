#include <memory>

#include "memory_reuse.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterMemoryReuse(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::MemoryReusePass::kName, pypto::passes::MemoryReusePass::kDescription,
                    [] { return std::make_unique<pypto::passes::MemoryReusePass>(); });
}

}  // namespace

PYPTO_PLUGIN("memory_reuse", "0.1.0", RegisterMemoryReuse)
