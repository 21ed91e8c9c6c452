#include <memory>

#include "inline_functions.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterInlineFunctions(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::InlineFunctionsPass::kName, pypto::passes::InlineFunctionsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::InlineFunctionsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("inline_functions", "0.1.0", RegisterInlineFunctions)
