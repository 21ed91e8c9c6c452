#include <memory>

#include "pypto/plugin/abi.h"
#include "unroll_loops.h"

namespace {

void RegisterUnrollLoops(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::UnrollLoopsPass::kName, pypto::passes::UnrollLoopsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::UnrollLoopsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("unroll_loops", "0.1.0", RegisterUnrollLoops)
