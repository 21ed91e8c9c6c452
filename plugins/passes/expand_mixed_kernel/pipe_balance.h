// The pipe traffic of a Group's kernels must balance: what the AIC pushes,
// each AIV lane pops, and every pop is freed. Checked before anything runs
// wherever the counts are static; the simulator's deadlock report covers
// the rest.
#pragma once

#include "pypto/ir/ir.h"

namespace pypto::passes::mixed {

// A ValueError, with the counts and the lines, when the members of `group`
// in `program` push and pop different numbers of tiles in a direction, pop
// without freeing, or use a pipe they never initialize (or initialize
// differently).
void CheckPipeBalance(const ir::Program& program, const ir::Function& group);

}  // namespace pypto::passes::mixed
