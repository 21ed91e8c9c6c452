// InlineFunctions: splices the body of every Inline function into each of its
// call sites and removes the Inline functions. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class InlineFunctionsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "InlineFunctions";
  static constexpr const char* kDescription =
      "Splice the bodies of Inline functions into their call sites and drop the Inline functions";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet produced() const override { return {pass::IRProperty::NoInlineFunctions}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
