#include <memory>

#include "pypto/plugin/abi.h"
#include "synthesize_allreduce_signals.h"

namespace {

void RegisterSynthesizeAllReduceSignals(pypto::plugin::PluginRegistrar& registrar) {
  using pypto::passes::SynthesizeAllReduceSignalsPass;
  registrar.AddPass(SynthesizeAllReduceSignalsPass::kName, SynthesizeAllReduceSignalsPass::kDescription,
                    [] { return std::make_unique<SynthesizeAllReduceSignalsPass>(); });
}

}  // namespace

PYPTO_PLUGIN("synthesize_allreduce_signals", "0.1.0", RegisterSynthesizeAllReduceSignals)
