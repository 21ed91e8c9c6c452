#include <memory>

#include "lower_pipeline_loops.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterLowerPipelineLoops(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::LowerPipelineLoopsPass::kName, pypto::passes::LowerPipelineLoopsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::LowerPipelineLoopsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("lower_pipeline_loops", "0.1.0", RegisterLowerPipelineLoops)
