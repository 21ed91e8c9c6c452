// Where a kernel needs events: a walk over its statements in program order
// (each loop body twice, so that a dependency from one iteration into the
// next shows), keeping what every pipe knows to be done, finds each access
// that an earlier conflicting access on another pipe is not ordered before;
// the placement turns each such dependency into a set_flag after the
// producer's statement and a wait_flag before the consumer's, in the block
// that holds both, and gives it an event id that no other live event of the
// same pipe pair holds.
#pragma once

#include <map>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::passes::pipe_sync {

// A statement to insert, and where: into the block (a body's statement list,
// identified by the body node) before the statement at `index` (or after the
// last statement when index is the block's size).
struct Insertion {
  const ir::Stmt* block = nullptr;
  size_t index = 0;
  ir::StmtPtr stmt;
};

// The synchronization `kernel` needs, in the order to insert it.
std::vector<Insertion> PlanPipeSync(const ir::Function& kernel);

}  // namespace pypto::passes::pipe_sync
