#include <memory>

#include "flatten_tile_nd_to_2d.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterFlattenTileNdTo2D(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::FlattenTileNdTo2DPass::kName, pypto::passes::FlattenTileNdTo2DPass::kDescription,
                    [] { return std::make_unique<pypto::passes::FlattenTileNdTo2DPass>(); });
}

}  // namespace

PYPTO_PLUGIN("flatten_tile_nd_to_2d", "0.1.0", RegisterFlattenTileNdTo2D)
