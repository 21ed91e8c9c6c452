// ConvertToSSA: puts a program whose variables are reassigned (built with the
// IR node APIs rather than parsed) into SSA form. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class ConvertToSSAPass : public pass::Pass {
 public:
  static constexpr const char* kName = "ConvertToSSA";
  static constexpr const char* kDescription =
      "Give every reassignment a fresh variable; merge values with if return_vars and carry them through loops "
      "with iter_args";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet produced() const override { return {pass::IRProperty::SSAForm}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
