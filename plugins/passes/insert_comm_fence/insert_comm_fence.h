// InsertCommFence: orders each kernel's window memory against its signals.
// A system.fence follows every statement that writes a window (on this rank
// or a peer's) and every system.wait, so data is visible before a later
// notify releases it and reads after a wait see what the peer published.
// See README.md for the rules.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class InsertCommFencePass : public pass::Pass {
 public:
  static constexpr const char* kName = "InsertCommFence";
  static constexpr const char* kDescription =
      "Fence kernels' window writes and signal waits, so a notify releases visible data and a wait sees fresh data";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // The fences order the kernels' final tile code: a tensor op still to be
  // lowered could become stores the pass never saw.
  pass::PropertySet required() const override { return {pass::IRProperty::IncoreTileOps}; }
  // Returns `program` itself when no kernel needs a fence it lacks.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
