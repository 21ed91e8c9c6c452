#include <memory>

#include "convert_tensor_to_tile_ops.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterConvertTensorToTileOps(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::ConvertTensorToTileOpsPass::kName,
                    pypto::passes::ConvertTensorToTileOpsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::ConvertTensorToTileOpsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("convert_tensor_to_tile_ops", "0.1.0", RegisterConvertTensorToTileOps)
