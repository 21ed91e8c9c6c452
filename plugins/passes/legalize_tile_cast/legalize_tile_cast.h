// LegalizeTileCast: every tile.cast of an InCore/AIC/AIV function becomes a
// cast the platform performs in one instruction, or a chain of them through
// intermediate dtypes (an integer narrowing no chain wraps is wrapped with
// bitwise ops first); casts to the source's own dtype disappear. See
// README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class LegalizeTileCastPass : public pass::Pass {
 public:
  static constexpr const char* kName = "LegalizeTileCast";
  static constexpr const char* kDescription =
      "Turn tile casts the platform has no single instruction for into chains of native casts";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Intermediate tiles are new single assignments; only tile-level kernels
  // are final (a tensor.cast still to be converted would bypass the pass).
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm, pass::IRProperty::IncoreTileOps}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::TileCastsLegalized}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
