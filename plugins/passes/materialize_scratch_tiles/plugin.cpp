#include <memory>

#include "materialize_scratch_tiles.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterMaterializeScratchTiles(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::MaterializeScratchTilesPass::kName,
                    pypto::passes::MaterializeScratchTilesPass::kDescription,
                    [] { return std::make_unique<pypto::passes::MaterializeScratchTilesPass>(); });
}

}  // namespace

PYPTO_PLUGIN("materialize_scratch_tiles", "0.1.0", RegisterMaterializeScratchTiles)
