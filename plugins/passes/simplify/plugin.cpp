#include <memory>

#include "pypto/plugin/abi.h"
#include "simplify.h"

namespace {

void RegisterSimplify(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::SimplifyPass::kName, pypto::passes::SimplifyPass::kDescription,
                    [] { return std::make_unique<pypto::passes::SimplifyPass>(); });
}

}  // namespace

PYPTO_PLUGIN("simplify", "0.1.0", RegisterSimplify)
