// The CPU implementation of the PTO tile ISA used by the simulated platforms
// (a2a3sim, a5sim). Freestanding: no standard library headers. See docs/isa.md.
#pragma once

#include "pypto/isa/instructions.h"
#include "pypto/isa/pipe.h"
#include "pypto/isa/sim_core.h"
#include "pypto/isa/tile.h"
#include "pypto/isa/types.h"
