#include <memory>

#include "materialize_comm_domain_scopes.h"
#include "pypto/plugin/abi.h"

namespace {

void RegisterMaterializeCommDomainScopes(pypto::plugin::PluginRegistrar& registrar) {
  using pypto::passes::MaterializeCommDomainScopesPass;
  registrar.AddPass(MaterializeCommDomainScopesPass::kName, MaterializeCommDomainScopesPass::kDescription,
                    [] { return std::make_unique<MaterializeCommDomainScopesPass>(); });
}

}  // namespace

PYPTO_PLUGIN("materialize_comm_domain_scopes", "0.1.0", RegisterMaterializeCommDomainScopes)
