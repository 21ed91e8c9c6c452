// MaterializeScratchTiles: a tile op whose scratch operand is optional in the
// language but required by its PTO-ISA instruction (TTRANS, TSEL) gets a
// tile.create of its result's shape, dtype and memory space as that operand, so that every
// scratch buffer is planned with the kernel's other tiles. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class MaterializeScratchTilesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "MaterializeScratchTiles";
  static constexpr const char* kDescription =
      "Give every tile op whose PTO-ISA instruction needs a scratch tile one, where the program left it out";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // The scratch tiles are new single assignments of tile ops; a tensor op
  // still to be converted would become a tile op the pass never saw; and a
  // scratch tile lives in its op's memory space, which must be known.
  pass::PropertySet required() const override {
    return {pass::IRProperty::SSAForm, pass::IRProperty::IncoreTileOps, pass::IRProperty::TileMemoryInferred};
  }
  pass::PropertySet produced() const override { return {pass::IRProperty::ScratchTilesMaterialized}; }
  // Returns `program` itself when every such op already has its scratch tile.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
