// Simplify: constant folding, algebraic identities, constant propagation,
// removal of branches and loops decided by constants, and dead code removal,
// iterated to a fixpoint. See README.md for the rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class SimplifyPass : public pass::Pass {
 public:
  static constexpr const char* kName = "Simplify";
  static constexpr const char* kDescription =
      "Constant folding, algebraic identities, constant propagation and dead code removal";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Constant propagation relies on every variable having one definition.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  std::vector<pass::PassOptionSpec> option_specs() const override;
  void Configure(const pass::PassOptions& options) override;
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;

 private:
  // Folding and dead code removal, alternated until nothing changes or max_iterations rounds ran.
  ir::FunctionPtr SimplifyFunction(const ir::FunctionPtr& function) const;

  bool fold_constants_ = true;
  bool remove_dead_code_ = true;
  int64_t max_iterations_ = 8;
};

}  // namespace pypto::passes
