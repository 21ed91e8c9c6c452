// ConvertTensorToTileOps: lowers tensor-level ops inside InCore/AIC/AIV
// functions to tile.load, tile ops and tile.store; tiles element-wise chains
// that would not fit in Vec whole, or have dynamic extents, into loops over
// static blocks. See README.md for the rules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class ConvertTensorToTileOpsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "ConvertTensorToTileOps";
  static constexpr const char* kDescription =
      "Lower tensor ops in InCore functions to tile.load, tile ops and tile.store, tiling chains that exceed Vec";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // New tiles and stores are single assignments.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::IncoreTileOps}; }
  std::vector<pass::PassOptionSpec> option_specs() const override;
  void Configure(const pass::PassOptions& options) override;
  // Reads the platform's Vec capacity unless the option gives one.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;

 private:
  int64_t vec_capacity_bytes_ = 0;
};

// The conversion itself, with the Vec capacity (bytes) that decides tiling.
ir::ProgramPtr ConvertTensorToTileOps(const ir::ProgramPtr& program, int64_t vec_capacity_bytes);

// The value of option `vec_capacity_bytes` in `options`, or `current`; a
// PipelineError when it is not an int >= 0.
int64_t ReadVecCapacityOption(const pass::PassOptions& options, int64_t current);

}  // namespace pypto::passes
