// AutoDeriveTaskDependencies: in orchestration code, finds pairs of kernel
// tasks that touch overlapping regions of one buffer (read after write, write
// after write, write after read) and records the earlier task as an explicit
// dependency of the later one, attrs["compiler_deps"] on the later call. The
// runtime tracks RAW and WAW itself but not WAR, so the WAR edges are the ones
// that change what runs. Opt-in; see README.md for the rules.
#pragma once

#include <string>
#include <vector>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class AutoDeriveTaskDependenciesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "AutoDeriveTaskDependencies";
  static constexpr const char* kDescription =
      "Add the task dependencies the runtime does not track (write after read) to kernel calls, where provable";
  static constexpr const char* kOption = "analyze_auto_scopes_for_deps";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet required() const override { return {pass::IRProperty::CallDirectionsResolved}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::TaskDependenciesDerived}; }
  std::vector<pass::PassOptionSpec> option_specs() const override;
  void Configure(const pass::PassOptions& options) override;
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;

 private:
  bool enabled_ = false;
};

// The analysis and rewrite, whatever the option says.
ir::ProgramPtr AutoDeriveTaskDependencies(const ir::ProgramPtr& program);

}  // namespace pypto::passes
