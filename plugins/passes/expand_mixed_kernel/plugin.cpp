#include <memory>

#include "expand_mixed_kernel.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterExpandMixedKernel(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::ExpandMixedKernelPass::kName, pypto::passes::ExpandMixedKernelPass::kDescription,
                    [] { return std::make_unique<pypto::passes::ExpandMixedKernelPass>(); });
}

}  // namespace

PYPTO_PLUGIN("expand_mixed_kernel", "0.1.0", RegisterExpandMixedKernel)
