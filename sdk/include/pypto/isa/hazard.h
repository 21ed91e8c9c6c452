// What the pipe-hazard checker sees of a kernel: every instruction's pipe and
// the bytes it reads and writes, and every set_flag / wait_flag /
// pipe_barrier.
//
// On the chip a core's pipes (S, V, MTE1, MTE2, MTE3, M, FIX) run
// asynchronously: an instruction on one pipe may start before an earlier
// instruction on another has finished, unless a flag orders them. The
// simulator, like the vendor's CPU simulation, runs every instruction to
// completion in program order, so a missing wait computes the right numbers
// here and corrupts them on the chip. The checker (the runtime's
// pypto/backend/pipe_hazards.h, on when a run asks for it) replays the
// ordering the flags give and reports an access that nothing orders after a
// conflicting access on another pipe as a fault naming both instructions.
//
// The reports are compiled in only with PTO_CHECK_PIPE_HAZARDS (what
// RunConfig(check_pipe_hazards=True) builds kernels with), so that other
// kernels pay nothing, in compile time or run time; with it, they are made
// while the core has a checker (SimCore::hazards).
#pragma once

#include "pypto/isa/perf_model.h"
#include "pypto/isa/sim_core.h"

namespace pto {

#if defined(PTO_CHECK_PIPE_HAZARDS)
inline constexpr bool kCheckPipeHazards = true;
#else
inline constexpr bool kCheckPipeHazards = false;
#endif

// The ISA's pipe numbers (pipe_t in sync.h), which the checker uses throughout.
inline constexpr int32_t kHazardPipeS = 0;
inline constexpr int32_t kHazardPipeV = 1;
inline constexpr int32_t kHazardPipeMTE1 = 2;
inline constexpr int32_t kHazardPipeMTE2 = 3;
inline constexpr int32_t kHazardPipeMTE3 = 4;
inline constexpr int32_t kHazardPipeM = 5;
inline constexpr int32_t kHazardPipeAll = 6;
inline constexpr int32_t kHazardPipeFIX = 7;

// The performance model's pipes (perf_model.h) as ISA pipe numbers.
inline constexpr int32_t HazardPipeOf(Pipe pipe) {
  switch (pipe) {
    case Pipe::MTE2: return kHazardPipeMTE2;
    case Pipe::MTE1: return kHazardPipeMTE1;
    case Pipe::V: return kHazardPipeV;
    case Pipe::M: return kHazardPipeM;
    case Pipe::MTE3: return kHazardPipeMTE3;
    case Pipe::FIX: return kHazardPipeFIX;
  }
  return kHazardPipeAll;
}

// Bytes one instruction touches: `rows` runs of `width` bytes, `row_stride`
// apart, from `base`. An on-chip operand is one run over its tile's whole
// static footprint (the pad is written too), at its address in the space; a
// global-memory window is its rows at their host addresses.
struct MemAccess {
  int32_t space = 0;  // TileType, or kGlobalMemory
  int32_t write = 0;  // 0: read, 1: write
  uint64_t base = 0;
  uint64_t rows = 1;
  uint64_t row_stride = 0;
  uint64_t width = 0;
};

enum class HazardSync : int32_t { SetFlag = 0, WaitFlag = 1, Barrier = 2 };

// The checker a core reports to while SimCore::hazards is set; the runtime
// provides it (core/include/pypto/backend/pipe_hazards.h). A hazard is
// recorded as a PipeHazard fault of `instruction` at the core's current line.
struct PipeHazards {
  // One instruction on `pipe` touching `accesses`.
  virtual void Access(SimCore& core, const char* instruction, int32_t pipe, const MemAccess* accesses,
                      int32_t count) = 0;
  // set_flag / wait_flag (src, dst, event) or pipe_barrier(src).
  virtual void Sync(SimCore& core, HazardSync kind, int32_t src, int32_t dst, int32_t event) = 0;
  // The kernel returned (the runtime calls it): an event still set is a fault; the next kernel starts afresh.
  virtual void Finish(SimCore& core) = 0;

 protected:
  ~PipeHazards() = default;
};

}  // namespace pto

namespace pto {
namespace detail {

// The checker of the calling thread's core, or null (the common case).
inline SimCore* HazardCore() {
  if constexpr (!kCheckPipeHazards) return nullptr;
  SimCore* core = pypto_sim_current_core();
  return core != nullptr && core->hazards != nullptr ? core : nullptr;
}

// A tile's footprint, read or written.
template <typename TileT>
inline MemAccess TileAccess(const TileT& t, bool write) {
  MemAccess a;
  a.space = static_cast<int32_t>(TileT::Loc);
  a.write = write ? 1 : 0;
  a.base = t.addr;
  a.width = TileT::kBytes;
  return a;
}

// The rows x cols window a TLOAD / TSTORE moves of a global tensor's 2-D view.
// Rows that are not evenly strided (a 3-D or deeper view) are covered by the
// window's bounding run, which may overlap more than the window does.
template <typename GT>
inline MemAccess GlobalAccess(const GT& gt, int64_t rows, int64_t cols, bool write) {
  using T = typename GT::DType;
  MemAccess a;
  a.space = kGlobalMemory;
  a.write = write ? 1 : 0;
  a.base = reinterpret_cast<uint64_t>(gt.data_);
  if (rows <= 0 || cols <= 0) {
    a.width = 0;
    return a;
  }
  const int64_t col_span = ((cols - 1) * gt.stride[4] + 1) * static_cast<int64_t>(sizeof(T));
  const bool even = gt.shape[0] * gt.shape[1] * gt.shape[2] == 1;
  if (even) {
    a.rows = static_cast<uint64_t>(rows);
    a.row_stride = static_cast<uint64_t>(gt.stride[3] * static_cast<int64_t>(sizeof(T)));
    a.width = static_cast<uint64_t>(col_span);
    return a;
  }
  const int64_t last = gt.RowOffset(rows - 1) * static_cast<int64_t>(sizeof(T)) + col_span;
  a.width = static_cast<uint64_t>(last);
  return a;
}

}  // namespace detail
}  // namespace pto
