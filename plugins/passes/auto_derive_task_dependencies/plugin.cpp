#include <memory>

#include "auto_derive_task_dependencies.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterAutoDeriveTaskDependencies(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::AutoDeriveTaskDependenciesPass::kName,
                    pypto::passes::AutoDeriveTaskDependenciesPass::kDescription,
                    [] { return std::make_unique<pypto::passes::AutoDeriveTaskDependenciesPass>(); });
}

}  // namespace

PYPTO_PLUGIN("auto_derive_task_dependencies", "0.1.0", RegisterAutoDeriveTaskDependencies)
