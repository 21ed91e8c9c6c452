// ExpandMixedKernel: an InCore function holding both cube work (matmul and
// the Mat/Left/Right/Acc tiles around it) and vector work (Vec tiles) becomes
// an AIC kernel, an AIV kernel and the Group that runs them on one cluster;
// each tile that crosses between the cores travels through the cluster's
// cross-core pipe. Hand-written Groups get their pipe traffic checked. See
// README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class ExpandMixedKernelPass : public pass::Pass {
 public:
  static constexpr const char* kName = "ExpandMixedKernel";
  static constexpr const char* kDescription =
      "Split each InCore function that mixes cube and vector work into an AIC kernel, an AIV kernel and their "
      "Group, joined by cross-core pipes";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // The core a statement runs on is read off its tiles' memory spaces, and
  // the boundary moves InferTileMemorySpace inserts are what cross.
  pass::PropertySet required() const override {
    return {pass::IRProperty::SSAForm, pass::IRProperty::TileMemoryInferred};
  }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
