// LowerPipelineLoops: every `pl.pipeline(start, stop, step, stage=F)` loop
// becomes a sequential loop stepping F iterations at a time whose body holds
// F copies of the original body, each with its own variables (so its tiles
// get their own buffers), plus the leftover iterations. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class LowerPipelineLoopsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "LowerPipelineLoops";
  static constexpr const char* kDescription =
      "Replicate the body of each pl.pipeline loop once per stage (ping-pong buffers)";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Copies get fresh variables; that keeps the program SSA only if it was.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::PipelineLoopsLowered}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
