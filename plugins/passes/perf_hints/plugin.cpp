#include <memory>

#include "perf_hints.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterPerfHints(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::PerfHintsPass::kName, pypto::passes::PerfHintsPass::kDescription,
                    [] { return std::make_unique<pypto::passes::PerfHintsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("perf_hints", "0.1.0", RegisterPerfHints)
