#include <memory>

#include "derive_call_directions.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterDeriveCallDirections(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::DeriveCallDirectionsPass::kName,
                    pypto::passes::DeriveCallDirectionsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::DeriveCallDirectionsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("derive_call_directions", "0.1.0", RegisterDeriveCallDirections)
