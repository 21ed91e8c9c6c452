#include <memory>

#include "outline_scopes.h"
#include "pypto/plugin/abi.h"

namespace {

template <class PassT>
void AddOutlinePass(pypto::plugin::PluginRegistrar& registrar) {
  registrar.AddPass(PassT::kName, PassT::kDescription, [] { return std::make_unique<PassT>(); });
}

void RegisterOutlineScopes(pypto::plugin::PluginRegistrar& registrar) {
  AddOutlinePass<pypto::passes::OutlineHierarchyScopesPass>(registrar);
  AddOutlinePass<pypto::passes::OutlineIncoreScopesPass>(registrar);
  AddOutlinePass<pypto::passes::OutlineClusterScopesPass>(registrar);
}

}  // namespace

PYPTO_PLUGIN("outline_scopes", "0.1.0", RegisterOutlineScopes)
