// The simulated core a kernel runs on: one on-chip buffer per memory space and
// the kernel-visible fault state. The runtime sizes the buffers from the
// platform file; nothing here assumes a capacity.
//
// Faults never abort or throw (JIT code may run without exceptions): the
// first fault is recorded, later ones only counted, and the faulting
// instruction does nothing. The runtime reads the record after the kernel.
#pragma once

#include "pypto/isa/types.h"

namespace pto {

// The ISA's tile locations. The simulated core has a buffer for the first six.
enum class TileType : int {
  Vec = 0,
  Mat = 1,
  Left = 2,
  Right = 3,
  Acc = 4,
  Bias = 5,
  Scaling = 6,
  ScaleLeft = 7,
  ScaleRight = 8,
  Ctrl = 9,
};
inline constexpr int kNumTileTypes = 6;

inline const char* TileTypeName(TileType t) {
  switch (t) {
    case TileType::Vec: return "Vec";
    case TileType::Mat: return "Mat";
    case TileType::Left: return "Left";
    case TileType::Right: return "Right";
    case TileType::Acc: return "Acc";
    case TileType::Bias: return "Bias";
    case TileType::Scaling: return "Scaling";
    case TileType::ScaleLeft: return "ScaleLeft";
    case TileType::ScaleRight: return "ScaleRight";
    case TileType::Ctrl: return "Ctrl";
  }
  return "?";
}

// What went wrong; the numbers in SimFault say by how much.
enum class FaultKind : uint32_t {
  None = 0,
  OutOfCapacity = 1,      // [addr, addr + bytes) is not inside the space's buffer
  Misaligned = 2,         // addr is not a multiple of kTileAlignment
  Unassigned = 3,         // a tile used before a successful TASSIGN
  ValidShape = 4,         // a valid extent outside 0..the tile's static extent
  ShapeMismatch = 5,      // operand extents that do not fit each other
  GlobalOutOfBounds = 6,  // a TLOAD/TSTORE window beyond the global tensor's extent
  NaN = 7,                // a NaN in the result (PTO_CHECK_NAN builds); value/limit: its row/column
  Comm = 8,               // a distributed op failed; SimFault::detail says why (the comm engine's message)
  Pipe = 9,               // a cross-core pipe op failed (deadlock, misuse); SimFault::detail is the pipe's report
  PipeHazard = 10,        // an access no flag orders after a conflicting one on another pipe; detail says which
};

inline const char* FaultKindName(FaultKind k) {
  switch (k) {
    case FaultKind::None: return "none";
    case FaultKind::OutOfCapacity: return "outside the memory space's capacity";
    case FaultKind::Misaligned: return "misaligned tile address";
    case FaultKind::Unassigned: return "tile used before TASSIGN";
    case FaultKind::ValidShape: return "valid shape outside the tile";
    case FaultKind::ShapeMismatch: return "operand shapes do not fit";
    case FaultKind::GlobalOutOfBounds: return "window outside the global tensor";
    case FaultKind::NaN: return "NaN in the result";
    case FaultKind::Comm: return "distributed op failed";
    case FaultKind::Pipe: return "cross-core pipe op failed";
    case FaultKind::PipeHazard: return "unsynchronized pipes";
  }
  return "?";
}

// Tile addresses are multiples of this many bytes (the allocator's alignment).
inline constexpr uint64_t kTileAlignment = 32;

struct SimFault {
  FaultKind kind = FaultKind::None;
  const char* instruction = nullptr;  // "TADD", ... (a string literal)
  uint32_t line = 0;                  // the user's source line of the faulting instruction
  TileType space = TileType::Vec;     // the memory space involved, where one is
  int64_t value = 0;                  // offending address / extent
  int64_t limit = 0;                  // the capacity / extent it broke
  char detail[2048] = {};             // FaultKind::Comm / Pipe / PipeHazard: the message
};

struct PerfModel;  // perf_model.h
struct SimPipe;    // the cross-core pipe of a cluster (pipe.h); the runtime owns it
struct PipeHazards;  // the pipe-hazard checker (hazard.h); the runtime owns it

struct SimCore {
  unsigned char* buffer[kNumTileTypes] = {};
  uint64_t capacity[kNumTileTypes] = {};
  SimFault fault;          // the first fault
  uint32_t fault_count = 0;
  // The user's source line of the instruction that runs now: PYPTO_LOC(n)
  // (pto/pto-inst.hpp) sets it before each instruction of a generated kernel,
  // so that instructions keep the ISA's signatures and faults still name a line.
  uint32_t line = 0;
  // Set while the runtime measures this core's kernel (a traced run); the
  // instructions charge their cycles to it.
  PerfModel* perf = nullptr;
  // The pipe of this core's cluster (pipe.h), null where the core runs alone,
  // and the core's place in the cluster: 0 the AIC, 1 + lane an AIV lane.
  SimPipe* pipe = nullptr;
  int32_t cluster_member = 0;
  // Set while the run checks pipe synchronization (RunConfig(check_pipe_hazards=True)):
  // the instructions report their pipes and accesses to it (hazard.h).
  PipeHazards* hazards = nullptr;

  bool faulted() const { return fault_count != 0; }
  void Clear() {
    fault = SimFault{};
    fault_count = 0;
    line = 0;
  }
  void Raise(FaultKind kind, const char* instruction, TileType space, int64_t value, int64_t limit) {
    if (fault_count++ != 0) return;
    fault.kind = kind;
    fault.instruction = instruction;
    fault.line = line;
    fault.space = space;
    fault.value = value;
    fault.limit = limit;
  }
  void RaiseDetail(FaultKind kind, const char* instruction, const char* text) {
    if (fault_count != 0) {
      ++fault_count;
      return;
    }
    Raise(kind, instruction, TileType::Vec, 0, 0);
    size_t n = 0;
    for (; text != nullptr && text[n] != '\0' && n + 1 < sizeof(fault.detail); ++n) fault.detail[n] = text[n];
    fault.detail[n] = '\0';
  }
};

}  // namespace pto

namespace pto {
// Sets the calling thread's core; defined by PYPTO_ISA_DEFINE_CURRENT_CORE().
void SetCurrentCore(SimCore* core);
}  // namespace pto

// The core of the calling thread. The runtime (native code) defines it, so JIT
// code needs no thread-local storage of its own; a host program (a test, a
// runtime) defines it and pto::SetCurrentCore with
// PYPTO_ISA_DEFINE_CURRENT_CORE() in exactly one translation unit.
extern "C" pto::SimCore* pypto_sim_current_core();

namespace pto {
// The source line of the calling core's current instruction (0 when unknown).
inline uint32_t SourceLine() {
  SimCore* core = pypto_sim_current_core();
  return core != nullptr ? core->line : 0;
}
// PYPTO_LOC(n): the instructions that follow come from line n of the user's source.
inline void SetSourceLine(uint32_t line) {
  if (SimCore* core = pypto_sim_current_core()) core->line = line;
}
}  // namespace pto

#define PYPTO_ISA_DEFINE_CURRENT_CORE()                                           \
  namespace pto {                                                                 \
  namespace current_core_storage {                                                \
  thread_local SimCore* current = nullptr;                                        \
  }                                                                               \
  void SetCurrentCore(SimCore* core) { current_core_storage::current = core; }    \
  }                                                                               \
  extern "C" pto::SimCore* pypto_sim_current_core() { return pto::current_core_storage::current; }
