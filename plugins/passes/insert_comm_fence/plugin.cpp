#include <memory>

#include "insert_comm_fence.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterInsertCommFence(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::InsertCommFencePass::kName, pypto::passes::InsertCommFencePass::kDescription,
                    [] { return std::make_unique<pypto::passes::InsertCommFencePass>(); });
}

}  // namespace

PYPTO_PLUGIN("insert_comm_fence", "0.1.0", RegisterInsertCommFence)
