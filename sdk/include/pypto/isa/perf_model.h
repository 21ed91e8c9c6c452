// The simulated performance model: every tile instruction a kernel runs is
// charged cycles on the pipe that would execute it on the NPU (MTE2 loads,
// MTE1 moves into the cube's operand buffers, V the vector unit, M the cube,
// MTE3 stores from Vec, FIX moves out of Acc), at the per-platform rates the
// simulator copies from platforms/<soc>.yaml.
//
// The pipes run in parallel, each in program order. An instruction starts
// when its pipe is free and the on-chip bytes it touches are ready: what it
// reads must have been written, what it writes must have been read and
// written by the instructions before it (a scoreboard of kChunkBytes chunks
// per memory space, i.e. the schedule ideal synchronisation would give).
// It holds its pipe for its work (bytes or MACs over the pipe's rate) and
// its result is ready `latency` cycles later. The kernel's cycle count is
// when its last result is ready.
//
// The cross-core pipe's instructions (pipe.h) are charged by the pipe
// (pypto/backend/sim_pipe.h) through IssueAfter: a push is a transfer of the
// tile out of its space (FIX from Acc, MTE1 from Mat, MTE3 from Vec), a pop a
// load into the popped tile (MTE2), with the ring counted as global memory;
// init and free are kPipeSyncCycles of flag work on MTE2. A pop starts no
// earlier than its push was done on the producer, a push into a full ring
// no earlier than the consumer freed the slot: the device's cross-core waits.
//
// The model is off unless the runtime measures the kernel (a traced run):
// SimCore::perf is null and the instructions skip it after one test.
#pragma once

#include "pypto/isa/sim_core.h"

namespace pto {

enum class Pipe : uint8_t { MTE2 = 0, MTE1 = 1, V = 2, M = 3, MTE3 = 4, FIX = 5 };
inline constexpr int kNumPipes = 6;

// Byte counters per space: the on-chip spaces by TileType, then global memory.
inline constexpr int kGlobalMemory = kNumTileTypes;
inline constexpr int kNumCountedSpaces = kNumTileTypes + 1;

// The cube's MAC rate depends on the operand type.
enum class CubeKind : uint8_t { Half = 0, Float = 1, Int8 = 2 };
inline constexpr int kNumCubeKinds = 3;

struct PipeRate {
  double per_cycle = 1;   // bytes per cycle (MACs per cycle for M: see PerfModel::cube_macs_per_cycle)
  uint64_t latency = 0;   // cycles from the end of issue until the result is usable
};

// Where an instruction's operand sits: the whole static tile (what the
// scoreboard guards) and the bytes it actually moves (its valid region).
struct Operand {
  int space = 0;          // TileType, or kGlobalMemory
  uint64_t addr = 0;
  uint64_t footprint = 0;
  uint64_t bytes = 0;
};

struct PerfModel {
  static constexpr uint64_t kChunkBytes = 512;

  // Cycles of the flag work of a cross-core pipe's init and free (set and
  // wait flags, issued on MTE2 after the loads before them).
  static constexpr uint64_t kPipeSyncCycles = 4;

  // Figures, set once by the simulator.
  PipeRate pipes[kNumPipes];
  double cube_macs_per_cycle[kNumCubeKinds] = {1, 1, 1};

  // Scoreboard, owned by the simulator: per on-chip space, one entry per
  // chunk of its buffer, the cycle the last write of it / last read of it is done.
  uint64_t* written_at[kNumTileTypes] = {};
  uint64_t* read_at[kNumTileTypes] = {};
  uint64_t chunks[kNumTileTypes] = {};

  // What the running kernel did; the simulator resets it per kernel.
  uint64_t pipe_free[kNumPipes] = {};
  uint64_t busy_cycles[kNumPipes] = {};
  uint64_t instructions[kNumPipes] = {};
  uint64_t bytes_read[kNumCountedSpaces] = {};
  uint64_t bytes_written[kNumCountedSpaces] = {};
  uint64_t done = 0;  // when the last result is ready

  // Cycles `units` of work take on `pipe` (at least one).
  uint64_t WorkCycles(Pipe pipe, double units) const {
    double per_cycle = pipes[static_cast<int>(pipe)].per_cycle;
    return CeilCycles(units / (per_cycle > 0 ? per_cycle : 1));
  }
  uint64_t CubeCycles(CubeKind kind, double macs) const {
    double per_cycle = cube_macs_per_cycle[static_cast<int>(kind)];
    return CeilCycles(macs / (per_cycle > 0 ? per_cycle : 1));
  }

  // When an issued instruction ran: `own` is when its pipe and operands
  // allowed it to start, `start` when it did (later only for a not_before
  // constraint: a cross-core pipe's peer), `ready` when its result is usable.
  struct Issued {
    uint64_t own = 0;
    uint64_t start = 0;
    uint64_t issued = 0;  // start + work: the pipe is free again
    uint64_t ready = 0;
  };

  // Charges one instruction: `work` cycles on `pipe`, reading `reads` and
  // writing `writes` (either may include global memory, which only counts bytes).
  void Issue(Pipe pipe, uint64_t work, const Operand* reads, int num_reads, const Operand* writes, int num_writes) {
    IssueAfter(0, pipe, work, reads, num_reads, writes, num_writes);
  }

  // Issue, starting no earlier than cycle `not_before` (an event of another
  // core on the same clock: a cluster's kernels start together). A cross-core
  // pipe's transfers use it (core/src/backend/sim_pipe.cpp): a pop starts
  // once its tile was pushed, a push once its slot was freed.
  Issued IssueAfter(uint64_t not_before, Pipe pipe, uint64_t work, const Operand* reads, int num_reads,
                    const Operand* writes, int num_writes) {
    const int p = static_cast<int>(pipe);
    uint64_t own = pipe_free[p];
    for (int i = 0; i < num_reads; ++i) own = Max(own, ReadyToRead(reads[i]));
    for (int i = 0; i < num_writes; ++i) own = Max(own, ReadyToWrite(writes[i]));
    const uint64_t start = Max(own, not_before);
    const uint64_t issued = start + work;
    const uint64_t ready = issued + pipes[p].latency;
    pipe_free[p] = issued;
    busy_cycles[p] += work;
    ++instructions[p];
    done = Max(done, ready);
    for (int i = 0; i < num_reads; ++i) {
      bytes_read[reads[i].space] += reads[i].bytes;
      Mark(read_at, reads[i], ready);
    }
    for (int i = 0; i < num_writes; ++i) {
      bytes_written[writes[i].space] += writes[i].bytes;
      Mark(written_at, writes[i], ready);
    }
    return {own, start, issued, ready};
  }

  // Charges `cycles` of flag work on `pipe` (no operands, no latency), no
  // earlier than `not_before`; returns when it is done.
  uint64_t IssueSync(uint64_t not_before, Pipe pipe, uint64_t cycles) {
    const int p = static_cast<int>(pipe);
    const uint64_t issued = Max(pipe_free[p], not_before) + cycles;
    pipe_free[p] = issued;
    busy_cycles[p] += cycles;
    ++instructions[p];
    done = Max(done, issued);
    return issued;
  }

 private:
  static uint64_t Max(uint64_t a, uint64_t b) { return a > b ? a : b; }
  static uint64_t CeilCycles(double cycles) {
    uint64_t whole = static_cast<uint64_t>(cycles);
    if (static_cast<double>(whole) < cycles) ++whole;
    return whole > 0 ? whole : 1;
  }

  // The chunks [first, last] an on-chip operand covers; false for global memory.
  bool Chunks(const Operand& o, uint64_t& first, uint64_t& last) const {
    if (o.space == kGlobalMemory || o.footprint == 0 || written_at[o.space] == nullptr) return false;
    first = o.addr / kChunkBytes;
    last = (o.addr + o.footprint - 1) / kChunkBytes;
    if (first >= chunks[o.space]) return false;
    if (last >= chunks[o.space]) last = chunks[o.space] - 1;
    return true;
  }
  uint64_t Latest(uint64_t* const* table, const Operand& o) const {
    uint64_t first = 0, last = 0, latest = 0;
    if (!Chunks(o, first, last)) return 0;
    for (uint64_t c = first; c <= last; ++c) latest = Max(latest, table[o.space][c]);
    return latest;
  }
  uint64_t ReadyToRead(const Operand& o) const { return Latest(written_at, o); }
  uint64_t ReadyToWrite(const Operand& o) const { return Max(Latest(written_at, o), Latest(read_at, o)); }
  void Mark(uint64_t* const* table, const Operand& o, uint64_t cycle) {
    uint64_t first = 0, last = 0;
    if (!Chunks(o, first, last)) return;
    for (uint64_t c = first; c <= last; ++c) table[o.space][c] = Max(table[o.space][c], cycle);
  }
};

}  // namespace pto
