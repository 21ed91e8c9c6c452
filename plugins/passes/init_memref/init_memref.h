// InitMemRef: gives every on-chip tile of the InCore, AIC and AIV functions a
// MemRef (tiles that must share storage share one) and reserves each distinct
// buffer with a tile.alloc at the top of the function. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class InitMemRefPass : public pass::Pass {
 public:
  static constexpr const char* kName = "InitMemRef";
  static constexpr const char* kDescription = "Give every on-chip tile a MemRef and every distinct buffer a tile.alloc";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Buffers are per memory space, so every tile needs one first.
  pass::PropertySet required() const override { return {pass::IRProperty::TileMemoryInferred}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::HasMemRefs}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
