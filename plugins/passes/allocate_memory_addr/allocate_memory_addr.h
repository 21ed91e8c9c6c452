// AllocateMemoryAddr: gives every buffer of the InCore, AIC and AIV functions
// an aligned address in its memory space and checks that each space's
// high-water mark fits the platform's capacity. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class AllocateMemoryAddrPass : public pass::Pass {
 public:
  static constexpr const char* kName = "AllocateMemoryAddr";
  static constexpr const char* kDescription =
      "Give every buffer an aligned address in its memory space, checked against the platform";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  pass::PropertySet required() const override { return {pass::IRProperty::HasMemRefs}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::AllocatedMemoryAddr}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
