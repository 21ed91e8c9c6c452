// <pto/pto-inst.hpp> on the simulated platforms (a2a3sim, a5sim): PyPTO's
// fast, freestanding CPU implementation of the PTO tile ISA, under the
// header name and with the names and signatures of the real one
// (hw-native-sys/pto-isa), for the subset PyPTO emits. A generated kernel
// compiles unchanged against either; docs/isa.md says what differs.
//
// What the simulator adds, all of it invisible to the real toolchain:
//  - PYPTO_LOC(line): the user's source line of the instructions that follow,
//    for fault messages. A kernel defines it empty when this header does not
//    (the device, the vendor's __CPU_SIM).
//  - every instruction checks its operands and records a fault instead of
//    corrupting memory (pypto/isa/sim_core.h).
#pragma once

// The device compiler's address-space and function qualifiers mean nothing on the CPU.
#ifndef __aicore__
#define __aicore__
#endif
#ifndef AICORE
#define AICORE
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __gm__
#define __gm__
#endif
#ifndef __ubuf__
#define __ubuf__
#endif
#ifndef __cbuf__
#define __cbuf__
#endif

#include "pypto/isa/instructions.h"
#include "pypto/isa/pipe.h"
#include "pypto/isa/sim_core.h"
#include "pypto/isa/sync.h"
#include "pypto/isa/tile.h"
#include "pypto/isa/types.h"

#define PYPTO_LOC(line) ::pto::SetSourceLine(line)
