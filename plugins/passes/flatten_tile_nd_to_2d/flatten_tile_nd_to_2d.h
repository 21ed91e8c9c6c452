// FlattenTileNdTo2D: every tile op of an InCore/AIC/AIV function works on 2D
// tiles afterwards; rank > 2 tiles merge their leading dims, rank-1 tiles
// become [1, N]. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class FlattenTileNdTo2DPass : public pass::Pass {
 public:
  static constexpr const char* kName = "FlattenTileNdTo2D";
  static constexpr const char* kDescription =
      "Make every tile op in InCore code work on 2D tiles by merging leading dims";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Tiles exist only once tensor ops are lowered; new reshapes are single assignments.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm, pass::IRProperty::IncoreTileOps}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::TileOps2D}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
