// Cross-core pipes of a cluster (1 AIC + 2 AIV lanes): the PTO-ISA TPUSH /
// TPOP / TFREE instructions of mixed kernels, on the simulator.
//
// Each direction (C2V: AIC -> AIV, V2C: AIV -> AIC) is, per AIV lane, a ring
// of slot_num slots of slot_size bytes, one tile a slot. A push waits for its
// next slot to be free, copies the tile in and marks the slot ready; a pop
// waits for its next slot to be ready and copies the tile out, but keeps the
// slot until the consumer's TFREE, so a consumer that never frees makes its
// producer block once the ring is full. Slots go round in FIFO order.
//
// Split modes (a mixed kernel whose vector work is halved across the lanes):
// a C2V push hands lane l its half of the tile (UP_DOWN: rows, LEFT_RIGHT:
// columns; NONE: the whole tile to every lane); a V2C pop on the AIC gathers
// each lane's tile into its half (NONE: lane 0's tile, lane 1's slot is
// consumed alongside). Both ends of a transfer must name the same split.
//
// The ring itself, the waiting and the deadlock report live in the core
// library (SimPipe, pypto/backend/sim_pipe.h, reached through the C functions below),
// because a wait needs the host's threads and clocks; the copies are here,
// where the tile types are. A wait that can never end (every core of the
// cluster blocked or finished) or outlasts the pipe's timeout is a Pipe fault
// of the instruction whose report names the kernel, the ring and its counts.
#pragma once

#include "pypto/isa/instructions.h"
#include "pypto/isa/sim_core.h"
#include "pypto/isa/tile.h"
#include "pypto/isa/types.h"

namespace pto {

// dir_mask bits of AIC_INITIALIZE_PIPE / AIV_INITIALIZE_PIPE.
inline constexpr int32_t DIR_C2V = 1;
inline constexpr int32_t DIR_V2C = 2;

// A ring's direction (the index the runtime's functions take).
enum class PipeDir : int32_t { C2V = 0, V2C = 1 };

enum class PipeSplit : int32_t { NONE = 0, UP_DOWN = 1, LEFT_RIGHT = 2 };

// What one slot holds besides its bytes: the valid rows x cols, packed
// row-major, of elements of elem_bytes, and the split the producer used.
struct PipeTileShape {
  int32_t rows = 0;
  int32_t cols = 0;
  int32_t elem_bytes = 0;
  int32_t split = 0;
};

// What a transfer is for the performance model (perf_model.h): where the
// pushed or popped tile sits (its space, address and static footprint) and
// the pipe that moves it. The bytes are the part's valid ones.
struct PipeCost {
  int32_t pipe = 0;   // pto::Pipe
  int32_t space = 0;  // TileType
  uint64_t addr = 0;
  uint64_t footprint = 0;
};

}  // namespace pto

// Defined by the core (pypto/backend/sim_pipe.h). Each works on the pipe of
// `core`'s cluster; a failure is recorded as a Pipe fault of `instruction` at
// the current line on `core` and returns 0 / null.
extern "C" {
// slot_num 0: the hardware's depth (8 for one direction, 4 each for two).
pto::int32_t pypto_sim_pipe_init(pto::SimCore* core, pto::int32_t aic, pto::int32_t dir_mask, pto::int64_t slot_size,
                                 pto::int32_t slot_num, const char* instruction);
// The AIV lanes of the running cluster task (1 or 2); 0 (and a fault) outside one.
pto::int32_t pypto_sim_pipe_lanes(pto::SimCore* core, const char* instruction);
// Producer: waits until the next slot of ring (dir, lane) is free; its bytes (at least `bytes`).
unsigned char* pypto_sim_pipe_reserve(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane, pto::int64_t bytes,
                                      const char* instruction);
// Producer: the reserved slot holds `shape`; it is ready for the consumer.
void pypto_sim_pipe_publish(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane, const pto::PipeTileShape* shape);
// Consumer: waits until the next slot of ring (dir, lane) is ready and takes it; valid until its free.
const unsigned char* pypto_sim_pipe_take(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane,
                                         pto::PipeTileShape* shape, const char* instruction);
// The same, charging the transfer to the core's performance model when it
// counts (a traced run): `cost` says where the tile sits and on which pipe
// it moves (null: not charged). The pipe ops below call these.
void pypto_sim_pipe_publish_counted(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane,
                                    const pto::PipeTileShape* shape, const pto::PipeCost* cost);
const unsigned char* pypto_sim_pipe_take_counted(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane,
                                                 pto::PipeTileShape* shape, const pto::PipeCost* cost,
                                                 const char* instruction);
// Consumer: frees the oldest slot it took from ring (dir, lane).
pto::int32_t pypto_sim_pipe_release(pto::SimCore* core, pto::int32_t dir, pto::int32_t lane, const char* instruction);
}

namespace pto {
namespace pipe_detail {

inline void Fail(const char* instruction, const char* text) {
  if (SimCore* core = pypto_sim_current_core()) core->RaiseDetail(FaultKind::Pipe, instruction, text);
}

// The window of a tile (static box rows x cols, valid vr x vc) that lane
// `lane` owns under `split`: its origin, its box and its valid extents.
struct Part {
  int row0, col0, box_rows, box_cols, rows, cols;
};

inline int Clamp(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

// A push moves the tile out of its space on the engine that does so (FIX
// from Acc, MTE1 from Mat, MTE3 from Vec); a pop loads it (MTE2).
template <typename TileT>
inline PipeCost CostOf(const TileT& tile, bool push) {
  Pipe pipe = Pipe::MTE2;
  if (push) pipe = TileT::Loc == TileType::Acc ? Pipe::FIX : TileT::Loc == TileType::Mat ? Pipe::MTE1 : Pipe::MTE3;
  return {static_cast<int32_t>(pipe), static_cast<int32_t>(TileT::Loc), static_cast<uint64_t>(tile.addr),
          static_cast<uint64_t>(TileT::kBytes)};
}

// The tile a push reads or a pop writes, for the hazard checker, on the
// pipe that moves it.
template <typename TileT>
inline void RecordTransfer(const TileT& tile, bool push, const char* instruction) {
  if (!kCheckPipeHazards || tile.core == nullptr || tile.core->hazards == nullptr) return;
  const MemAccess access = detail::TileAccess(tile, !push);
  tile.core->hazards->Access(*tile.core, instruction, HazardPipeOf(static_cast<Pipe>(CostOf(tile, push).pipe)),
                             &access, 1);
}

inline Part PartOf(int box_rows, int box_cols, int vr, int vc, PipeSplit split, int lane) {
  if (split == PipeSplit::UP_DOWN) {
    int h = box_rows / 2;
    return {lane * h, 0, h, box_cols, Clamp(vr - lane * h, h), vc};
  }
  if (split == PipeSplit::LEFT_RIGHT) {
    int h = box_cols / 2;
    return {0, lane * h, box_rows, h, vr, Clamp(vc - lane * h, h)};
  }
  return {0, 0, box_rows, box_cols, vr, vc};
}

// A split halves the box between two lanes: it needs both, and an even extent.
template <typename TileT>
inline bool SplitFits(PipeSplit split, int lanes, const char* instruction) {
  if (split == PipeSplit::NONE) return true;
  if (lanes != 2) {
    Fail(instruction, "a split (UP_DOWN / LEFT_RIGHT) shares the tile between two AIV lanes, but this cluster "
                           "task runs one; use split NONE or run the vector kernel on both lanes");
    return false;
  }
  int extent = split == PipeSplit::UP_DOWN ? TileT::kRows : TileT::kCols;
  if (extent % 2 != 0) {
    Fail(instruction, "the split halves the tile's box, but its extent along the split axis is odd; pad the "
                           "box to an even extent and narrow the valid shape instead");
    return false;
  }
  return true;
}

// Producer side: tile's part `p` into ring (dir, lane), packed row-major.
template <typename TileT>
inline bool PushPart(const TileT& tile, PipeDir dir, int lane, const Part& p, PipeSplit split,
                     const char* instruction) {
  using T = typename TileT::DType;
  SimCore* core = pypto_sim_current_core();
  int64_t box_bytes = static_cast<int64_t>(p.box_rows) * p.box_cols * static_cast<int64_t>(sizeof(T));
  unsigned char* slot =
      pypto_sim_pipe_reserve(core, static_cast<int32_t>(dir), lane, box_bytes, instruction);
  if (slot == nullptr) return false;
  T* out = reinterpret_cast<T*>(slot);
  for (int r = 0; r < p.rows; ++r) {
    for (int c = 0; c < p.cols; ++c) out[r * p.cols + c] = tile.At(p.row0 + r, p.col0 + c);
  }
  PipeTileShape shape{p.rows, p.cols, static_cast<int32_t>(sizeof(T)), static_cast<int32_t>(split)};
  const PipeCost cost = CostOf(tile, true);
  pypto_sim_pipe_publish_counted(core, static_cast<int32_t>(dir), lane, &shape, &cost);
  return true;
}

// Consumer side: takes the next slot of ring (dir, lane) and checks it fits a
// part of `tile` with box (box_rows x box_cols); null when it does not.
template <typename TileT>
inline const typename TileT::DType* TakePart(const TileT& tile, PipeDir dir, int lane, int box_rows, int box_cols,
                                             PipeSplit split, PipeTileShape& shape, const char* instruction) {
  using T = typename TileT::DType;
  const PipeCost cost = CostOf(tile, false);
  const unsigned char* slot = pypto_sim_pipe_take_counted(pypto_sim_current_core(), static_cast<int32_t>(dir), lane,
                                                          &shape, &cost, instruction);
  if (slot == nullptr) return nullptr;
  if (shape.split != static_cast<int32_t>(split)) {
    Fail(instruction, "the producer pushed this tile with another split mode than the pop names; both ends of "
                           "a transfer must use the same split");
    return nullptr;
  }
  if (shape.elem_bytes != static_cast<int32_t>(sizeof(T))) {
    Fail(instruction, "the producer pushed a tile of another element size than the popped tile's dtype; push "
                           "and pop the same dtype");
    return nullptr;
  }
  if (shape.rows > box_rows || shape.cols > box_cols) {
    Fail(instruction, "the pushed tile's valid shape does not fit the popped tile's box (or its half under "
                           "the split); give both ends the same tile shape");
    return nullptr;
  }
  return reinterpret_cast<const T*>(slot);
}

template <typename TileT>
inline void CopyIn(TileT& tile, const typename TileT::DType* in, const Part& p, const PipeTileShape& shape) {
  for (int r = 0; r < shape.rows; ++r) {
    for (int c = 0; c < shape.cols; ++c) tile.At(p.row0 + r, p.col0 + c) = in[r * shape.cols + c];
  }
}

// The popped tile's valid extents must be what arrived: set for a DYNAMIC
// tile, checked for a static one.
template <typename TileT>
inline bool TakeValidShape(TileT& tile, int rows, int cols, const char* instruction) {
  if constexpr (!TileT::kStaticValid) tile.SetValidShape(rows, cols);
  if (tile.GetValidRow() == rows && tile.GetValidCol() == cols) return true;
  Fail(instruction, "the pushed tile's valid shape differs from the popped tile's static valid shape; declare "
                         "the popped tile's valid shape DYNAMIC or give both ends the same one");
  return false;
}

inline int32_t Lanes(const char* instruction) {
  return pypto_sim_pipe_lanes(pypto_sim_current_core(), instruction);
}

}  // namespace pipe_detail

// Binds this core's end of the cluster's pipe: dir_mask (DIR_C2V | DIR_V2C)
// names the active directions, slot_size the bytes of a slot, slot_num the
// ring's depth (0: the hardware's, 8 for one direction and 4 each for two).
// The consumer's init frees every slot, so a producer waits for it.
inline void AIC_INITIALIZE_PIPE(int32_t dir_mask, int64_t slot_size, int32_t slot_num) {
  pypto_sim_pipe_init(pypto_sim_current_core(), 1, dir_mask, slot_size, slot_num, "AIC_INITIALIZE_PIPE");
}

inline void AIV_INITIALIZE_PIPE(int32_t dir_mask, int64_t slot_size, int32_t slot_num) {
  pypto_sim_pipe_init(pypto_sim_current_core(), 0, dir_mask, slot_size, slot_num, "AIV_INITIALIZE_PIPE");
}

// AIC: push `tile` to the AIV lanes (C2V), each lane its part under `split`.
template <typename TileT>
inline void TPUSH_TO_AIV(const TileT& tile, PipeSplit split) {
  constexpr const char* kName = "TPUSH_TO_AIV";
  if (!detail::Usable(tile, kName)) return;
  int32_t lanes = pipe_detail::Lanes(kName);
  if (lanes == 0 || !pipe_detail::SplitFits<TileT>(split, lanes, kName)) return;
  for (int lane = 0; lane < lanes; ++lane) {
    pipe_detail::Part p =
        pipe_detail::PartOf(TileT::kRows, TileT::kCols, tile.GetValidRow(), tile.GetValidCol(), split, lane);
    if (!pipe_detail::PushPart(tile, PipeDir::C2V, lane, p, split, kName)) return;
  }
  pipe_detail::RecordTransfer(tile, true, kName);
}

// AIV: push this lane's `tile` to the AIC (V2C); `split` says how the AIC's
// pop places it (its half, or the whole tile under NONE).
template <typename TileT>
inline void TPUSH_TO_AIC(const TileT& tile, PipeSplit split) {
  constexpr const char* kName = "TPUSH_TO_AIC";
  if (!detail::Usable(tile, kName)) return;
  SimCore* core = pypto_sim_current_core();
  if (core == nullptr) return;
  pipe_detail::Part whole{0, 0, TileT::kRows, TileT::kCols, tile.GetValidRow(), tile.GetValidCol()};
  if (!pipe_detail::PushPart(tile, PipeDir::V2C, core->cluster_member - 1, whole, split, kName)) return;
  pipe_detail::RecordTransfer(tile, true, kName);
}

// AIV: pop the next tile the AIC pushed to this lane (C2V) into `tile`.
template <typename TileT>
inline void TPOP_FROM_AIC(TileT& tile, PipeSplit split) {
  constexpr const char* kName = "TPOP_FROM_AIC";
  if (!detail::Usable(tile, kName)) return;
  SimCore* core = pypto_sim_current_core();
  if (core == nullptr) return;
  PipeTileShape shape;
  const auto* in = pipe_detail::TakePart<TileT>(tile, PipeDir::C2V, core->cluster_member - 1, TileT::kRows,
                                                TileT::kCols, split, shape, kName);
  if (in == nullptr || !pipe_detail::TakeValidShape(tile, shape.rows, shape.cols, kName)) return;
  pipe_detail::CopyIn(tile, in, pipe_detail::Part{0, 0, TileT::kRows, TileT::kCols, shape.rows, shape.cols}, shape);
  detail::Finish(tile, kName);
  pipe_detail::RecordTransfer(tile, false, kName);
}

// AIC: pop the next tile of every lane (V2C) into `tile`, each in its part
// under `split` (NONE: lane 0's tile is the result).
template <typename TileT>
inline void TPOP_FROM_AIV(TileT& tile, PipeSplit split) {
  constexpr const char* kName = "TPOP_FROM_AIV";
  if (!detail::Usable(tile, kName)) return;
  int32_t lanes = pipe_detail::Lanes(kName);
  if (lanes == 0 || !pipe_detail::SplitFits<TileT>(split, lanes, kName)) return;
  int rows = 0;
  int cols = 0;
  for (int lane = 0; lane < lanes; ++lane) {
    pipe_detail::Part box = pipe_detail::PartOf(TileT::kRows, TileT::kCols, 0, 0, split, lane);
    PipeTileShape shape;
    const auto* in =
        pipe_detail::TakePart<TileT>(tile, PipeDir::V2C, lane, box.box_rows, box.box_cols, split, shape, kName);
    if (in == nullptr) return;
    if (split == PipeSplit::NONE && lane > 0) continue;
    // The gathered valid extent ends where the last non-empty part ends.
    if (split == PipeSplit::UP_DOWN) {
      cols = shape.cols;
      if (shape.rows > 0) rows = box.row0 + shape.rows;
    } else if (split == PipeSplit::LEFT_RIGHT) {
      rows = shape.rows;
      if (shape.cols > 0) cols = box.col0 + shape.cols;
    } else {
      rows = shape.rows;
      cols = shape.cols;
    }
    pipe_detail::CopyIn(tile, in, box, shape);
  }
  if (!pipe_detail::TakeValidShape(tile, rows, cols, kName)) return;
  detail::Finish(tile, kName);
  pipe_detail::RecordTransfer(tile, false, kName);
}

// AIV: free the oldest slot this lane popped from the AIC (C2V).
inline void TFREE_TO_AIC() {
  SimCore* core = pypto_sim_current_core();
  if (core == nullptr) return;
  pypto_sim_pipe_release(core, static_cast<int32_t>(PipeDir::C2V), core->cluster_member - 1, "TFREE_TO_AIC");
}

// AIC: free the oldest slot popped from every lane (V2C).
inline void TFREE_TO_AIV() {
  constexpr const char* kName = "TFREE_TO_AIV";
  int32_t lanes = pipe_detail::Lanes(kName);
  for (int lane = 0; lane < lanes; ++lane) {
    if (!pypto_sim_pipe_release(pypto_sim_current_core(), static_cast<int32_t>(PipeDir::V2C), lane, kName)) {
      return;
    }
  }
}

}  // namespace pto
