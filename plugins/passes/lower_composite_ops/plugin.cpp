#include <memory>

#include "lower_composite_ops.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterLowerCompositeOps(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::LowerCompositeOpsPass::kName, pypto::passes::LowerCompositeOpsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::LowerCompositeOpsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("lower_composite_ops", "0.1.0", RegisterLowerCompositeOps)
