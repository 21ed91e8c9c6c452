#include <memory>

#include "auto_tile_matmul_l0.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterAutoTileMatmulL0(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::AutoTileMatmulL0Pass::kName, pypto::passes::AutoTileMatmulL0Pass::kDescription,
                    [] { return std::make_unique<pypto::passes::AutoTileMatmulL0Pass>(); });
}

}  // namespace

PYPTO_PLUGIN("auto_tile_matmul_l0", "0.1.0", RegisterAutoTileMatmulL0)
