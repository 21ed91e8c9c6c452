#include <memory>

#include "init_memref.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterInitMemRef(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::InitMemRefPass::kName, pypto::passes::InitMemRefPass::kDescription,
                    [] { return std::make_unique<pypto::passes::InitMemRefPass>(); });
}

}  // namespace

PYPTO_PLUGIN("init_memref", "0.1.0", RegisterInitMemRef)
