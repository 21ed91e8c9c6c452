#include <memory>

#include "lower_host_tensor_collectives.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterLowerHostTensorCollectives(pypto::plugin::PluginRegistrar& registrar) {
  using pypto::passes::LowerHostTensorCollectivesPass;
  registrar.AddPass(LowerHostTensorCollectivesPass::kName, LowerHostTensorCollectivesPass::kDescription,
                    [] { return std::make_unique<LowerHostTensorCollectivesPass>(); });
}

}  // namespace

PYPTO_PLUGIN("lower_host_tensor_collectives", "0.1.0", RegisterLowerHostTensorCollectives)
