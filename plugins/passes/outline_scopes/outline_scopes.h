// The scope-outlining passes. Each turns one family of placement scopes into
// functions called where the scope was; they share the live-in / live-out
// analysis in outliner.h. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

// `with pl.at(level=pl.Level.CORE_GROUP)` -> Function(InCore).
class OutlineIncoreScopesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "OutlineIncoreScopes";
  static constexpr const char* kDescription =
      "Outline each InCore scope into an InCore function called from the orchestration";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet produced() const override { return {pass::IRProperty::SplitIncoreOrch}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// `with pl.at(level=...)` at any other level -> Function(Opaque) with that level and role.
class OutlineHierarchyScopesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "OutlineHierarchyScopes";
  static constexpr const char* kDescription =
      "Outline each Hierarchy scope into an Opaque function carrying the scope's level and role";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// `pl.cluster()` -> Function(Group); a standalone `pl.spmd(n)` -> Function(Spmd).
class OutlineClusterScopesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "OutlineClusterScopes";
  static constexpr const char* kDescription =
      "Outline each Cluster scope into a Group function and each standalone Spmd scope into a Spmd function";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
