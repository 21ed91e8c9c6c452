// SynthesizeAllReduceSignals: a host orchestrator's `pld.tensor.allreduce(data)` without a signal gets
// one: a window buffer and an INT32 view [world_size, core_num] (mesh) or [2*(world_size-1)+1,
// world_size] (ring) allocated just before the call, used by that call alone. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class SynthesizeAllReduceSignalsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "SynthesizeAllReduceSignals";
  static constexpr const char* kDescription =
      "Give each host allreduce called without a signal window a zeroed INT32 signal window of its own";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Returns `program` itself when no host allreduce lacks its signal.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
