// MemoryReuse: lets tiles whose lifetimes do not overlap share one buffer in
// the InCore, AIC and AIV functions, packing first-fit-decreasing per memory
// space, and removes the tile.alloc of every buffer left unused. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class MemoryReusePass : public pass::Pass {
 public:
  static constexpr const char* kName = "MemoryReuse";
  static constexpr const char* kDescription = "Share one buffer between tiles whose lifetimes do not overlap";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // It merges the MemRefs InitMemRef created and keeps every tile's MemRef set.
  pass::PropertySet required() const override { return {pass::IRProperty::HasMemRefs}; }
  pass::PropertySet produced() const override { return {}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
