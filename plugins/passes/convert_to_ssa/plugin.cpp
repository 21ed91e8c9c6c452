#include <memory>

#include "convert_to_ssa.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterConvertToSSA(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::ConvertToSSAPass::kName, pypto::passes::ConvertToSSAPass::kDescription,
                    [] { return std::make_unique<pypto::passes::ConvertToSSAPass>(); });
}

}  // namespace

PYPTO_PLUGIN("convert_to_ssa", "0.1.0", RegisterConvertToSSA)
