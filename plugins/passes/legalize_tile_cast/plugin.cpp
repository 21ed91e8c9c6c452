#include <memory>

#include "legalize_tile_cast.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterLegalizeTileCast(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::LegalizeTileCastPass::kName, pypto::passes::LegalizeTileCastPass::kDescription,
                    [] { return std::make_unique<pypto::passes::LegalizeTileCastPass>(); });
}

}  // namespace

PYPTO_PLUGIN("legalize_tile_cast", "0.1.0", RegisterLegalizeTileCast)
