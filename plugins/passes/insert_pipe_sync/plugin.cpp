#include <memory>

#include "insert_pipe_sync.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterInsertPipeSync(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::InsertPipeSyncPass::kName, pypto::passes::InsertPipeSyncPass::kDescription,
                    [] { return std::make_unique<pypto::passes::InsertPipeSyncPass>(); });
}

}  // namespace

PYPTO_PLUGIN("insert_pipe_sync", "0.1.0", RegisterInsertPipeSync)
