// One core's kernel of a mixed InCore function: its statements, the shared
// ones, and the pipe ops where tiles cross.
#pragma once

#include <cstdint>
#include <string>

#include "classify.h"
#include "pypto/ir/ir.h"

namespace pypto::passes::mixed {

enum class Core { kCube, kVector };

// The pipe both kernels initialize, with the same numbers.
struct PipeSetup {
  int64_t split = 0;      // pto::PipeSplit code of every push and pop
  int64_t dir_mask = 0;   // 1 C2V, 2 V2C, 3 both
  int64_t slot_size = 0;  // bytes: the largest tile part one lane's slot holds
  int64_t slot_num = 2;   // slots per direction and lane (pl.cross_core_slot)
};

// The body of `kernel_name`, the `core` half of `function`: the pipe's init
// first; pushes and pops where tiles cross; each popped tile freed after its
// last use, in pop order; a plain return at the end (the Group returns the
// results). Variables are still the function's own: copy before reusing.
// A ValueError when the kernel would use a value only the other core has, or
// would hold more popped tiles at once than the ring has slots.
ir::StmtPtr BuildSide(const ir::Function& function, const Classification& classification, Core core,
                      const PipeSetup& pipe, const std::string& kernel_name);

}  // namespace pypto::passes::mixed
