// DeriveCallDirections: annotates each call of a kernel (InCore, AIC, AIV,
// Group or Spmd function) from orchestration code with the direction of every
// argument, attrs["arg_directions"], which the runtime uses to order tasks.
// See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class DeriveCallDirectionsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "DeriveCallDirections";
  static constexpr const char* kDescription =
      "Give every argument of a kernel call from the orchestration its runtime direction";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet required() const override { return {pass::IRProperty::SplitIncoreOrch}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::CallDirectionsResolved}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
