// The passes of this folder's plugins as the plugin host loads them: created
// by name from their manifests and libraries.
#include <gtest/gtest.h>

#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

TEST(OutlinePassPlugins, ProvideTheirPassesByName) {
  auto& registry = pass::PassRegistry::Global();
  for (const char* name : {"InlineFunctions", "OutlineHierarchyScopes", "OutlineIncoreScopes", "OutlineClusterScopes",
                           "DeriveCallDirections"}) {
    auto created = registry.Create(name);
    ASSERT_NE(created, nullptr) << name;
    EXPECT_EQ(created->name(), name);
  }
  EXPECT_TRUE(registry.Create("InlineFunctions")->produced().Has(pass::IRProperty::NoInlineFunctions));
  EXPECT_TRUE(registry.Create("OutlineIncoreScopes")->produced().Has(pass::IRProperty::SplitIncoreOrch));
  EXPECT_TRUE(registry.Create("DeriveCallDirections")->produced().Has(pass::IRProperty::CallDirectionsResolved));
}

}  // namespace
}  // namespace pypto::test
