// InferTileMemorySpace: gives every tile of an InCore/AIC/AIV function a
// memory space, from what its consumers demand and what its producer makes,
// and inserts the tile.move each consumer needs. See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class InferTileMemorySpacePass : public pass::Pass {
 public:
  static constexpr const char* kName = "InferTileMemorySpace";
  static constexpr const char* kDescription =
      "Give every tile in InCore code a memory space and insert the tile.move "
      "each consumer needs";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Moves are inserted as new single assignments, and each op's operand rules
  // are those of tile ops: tensor ops must be lowered first.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm, pass::IRProperty::IncoreTileOps}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::TileMemoryInferred}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
