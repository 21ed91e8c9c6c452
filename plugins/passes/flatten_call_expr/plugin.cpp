#include <memory>

#include "flatten_call_expr.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterFlattenCallExpr(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(pypto::passes::FlattenCallExprPass::kName, pypto::passes::FlattenCallExprPass::kDescription,
                    [] { return std::make_unique<pypto::passes::FlattenCallExprPass>(); });
}

}  // namespace

PYPTO_PLUGIN("flatten_call_expr", "0.1.0", RegisterFlattenCallExpr)
