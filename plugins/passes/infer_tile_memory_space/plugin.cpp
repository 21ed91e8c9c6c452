#include <memory>

#include "infer_tile_memory_space.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterInferTileMemorySpace(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::InferTileMemorySpacePass::kName,
                    pypto::passes::InferTileMemorySpacePass::kDescription,
                    [] { return std::make_unique<pypto::passes::InferTileMemorySpacePass>(); });
}

}  // namespace

PYPTO_PLUGIN("infer_tile_memory_space", "0.1.0", RegisterInferTileMemorySpace)
