// InsertPipeSync: orders the pipes of every kernel. On the chip MTE2, MTE1,
// V, M, FIX, MTE3 and the scalar unit run asynchronously; an instruction
// that touches memory an instruction of another pipe touched (one of them
// writing) must wait for it through a set_flag / wait_flag event, and a
// vector instruction that depends on an earlier one needs pipe_barrier(V).
// The pass inserts system.sync_src / system.sync_dst (set_flag / wait_flag)
// and system.bar_v / system.bar_all where they are needed, and no more: a
// wait that an earlier one already implies is left out, a set goes right
// after the instruction it releases so that the pipes overlap, and a
// dependency across loop iterations (double buffering) gets an event that is
// set before the loop and waited for after it. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class InsertPipeSyncPass : public pass::Pass {
 public:
  static constexpr const char* kName = "InsertPipeSync";
  static constexpr const char* kDescription =
      "Order each kernel's pipes with set_flag / wait_flag events and vector barriers where their instructions share "
      "memory";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Events order instructions by the bytes they touch: tiles need their
  // planned addresses, and the code must be the kernel's final tile code.
  pass::PropertySet required() const override {
    return {pass::IRProperty::IncoreTileOps, pass::IRProperty::AllocatedMemoryAddr};
  }
  pass::PropertySet produced() const override { return {pass::IRProperty::PipesSynchronized}; }
  // Returns `program` itself when no kernel needs an event it lacks.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// The kernel with its pipes ordered; `kernel` itself when it needs nothing
// or orders its pipes itself (it has system.sync_src / sync_dst).
ir::FunctionPtr InsertPipeSync(const ir::FunctionPtr& kernel);

}  // namespace pypto::passes
