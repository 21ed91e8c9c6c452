// LowerCompositeOps: every tile op of an InCore/AIC/AIV function that PTO-ISA
// has no instruction for (tile.sin, tile.cos) becomes a sequence of tile ops
// that it has. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class LowerCompositeOpsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "LowerCompositeOps";
  static constexpr const char* kDescription =
      "Rewrite tile ops that have no PTO-ISA instruction (sin, cos) into sequences of ops that do";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Each step is a new single assignment, and a composite op is always the
  // whole value of its statement; only tile-level kernels are final (a
  // tensor.sin still to be converted would come through unlowered).
  pass::PropertySet required() const override {
    return {pass::IRProperty::SSAForm, pass::IRProperty::NoNestedCalls, pass::IRProperty::IncoreTileOps};
  }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
