// UnrollLoops: expands every `pl.unroll` loop (ForKind::Unroll) into one copy
// of its body per iteration. See README.md for the rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class UnrollLoopsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "UnrollLoops";
  static constexpr const char* kDescription = "Expand pl.unroll loops into one copy of the body per iteration";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Copies get fresh variables; that keeps the program SSA only if it was.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::NoUnrollLoops}; }
  std::vector<pass::PassOptionSpec> option_specs() const override;
  void Configure(const pass::PassOptions& options) override;
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;

 private:
  int64_t max_iterations_ = 1024;
};

}  // namespace pypto::passes
