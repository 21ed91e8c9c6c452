// What a traced run recorded (Runtime::SetTracing): per task its kernels,
// arguments, dependencies with their cause, and when it was submitted and
// became ready; per core, when each block was dispatched to it, ran and was
// retired. The DFX outputs (swimlane, dependency graph) are written from it.
//
// Times are host steady-clock nanoseconds since the run's first submit began.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir/dtype.h"

namespace pypto::runtime {

using TaskId = int64_t;
enum class CoreType { AIC, AIV };
enum class ArgDirection { Input, Output, InOut, OutputExisting, NoDep, Scalar };

// What the simulated performance model charged one kernel on one core
// (RuntimeOptions::end_counting): cycles per pipe, instructions per pipe,
// bytes read and written per memory space. Pipes in kPipeNames order, spaces
// in kCountedSpaceNames order.
inline constexpr std::array<const char*, 6> kPipeNames = {"MTE2", "MTE1", "V", "M", "MTE3", "FIX"};
inline constexpr std::array<const char*, 7> kCountedSpaceNames = {"Vec", "Mat", "Left", "Right", "Acc", "Bias", "GM"};

// One wait of a kernel on its cluster's cross-core pipe (a mixed kernel's
// TPUSH into a full ring, or its TPOP from an empty one), in both clocks.
// Recorded for every transfer that waited in either: the host times are
// zero-length when only the modelled device waited, and vice versa.
struct PipeWait {
  std::string instruction;       // "TPOP_FROM_AIC", ...
  int32_t dir = 0;               // the ring: 0 C2V (AIC -> AIV), 1 V2C (AIV -> AIC)
  int32_t lane = 0;              // the AIV lane of the ring
  bool producer = false;         // true: a push waiting for a free slot; false: a pop waiting for a tile
  int64_t start_ns = 0;          // host time (ns since the run's first submit in a RunTrace)
  int64_t end_ns = 0;
  int64_t device_start_cycles = 0;  // modelled cycles since the kernel's start
  int64_t device_end_cycles = 0;
};

// A kernel's traffic on its cluster's cross-core pipe, per transfer that
// moved a tile (a push or pop of one lane's part counts once).
struct PipeCounters {
  int64_t tiles_pushed = 0;
  int64_t tiles_popped = 0;
  int64_t bytes_pushed = 0;     // the tiles' valid bytes
  int64_t bytes_popped = 0;
  int64_t frees = 0;
  int64_t wait_ns = 0;          // host time spent in waits
  int64_t wait_cycles = 0;      // modelled cycles the waits delayed the transfers
};

struct CoreCounters {
  bool measured = false;  // false: the core's state counts nothing (no simulator)
  int64_t cycles = 0;     // from the kernel's first instruction to its last result
  std::array<int64_t, kPipeNames.size()> pipe_busy_cycles{};
  std::array<int64_t, kPipeNames.size()> pipe_instructions{};
  std::array<int64_t, kCountedSpaceNames.size()> bytes_read{};
  std::array<int64_t, kCountedSpaceNames.size()> bytes_written{};
  PipeCounters pipe;                  // zero for a kernel that is not part of a cluster task
  std::vector<PipeWait> pipe_waits;   // in program order
};

// One core's share of one block: a plain task runs a block on one core, a
// cluster task on its AIC and AIV lanes at once, one span each.
struct CoreSpan {
  int32_t block_idx = 0;
  int32_t cluster_id = 0;
  CoreType core_type = CoreType::AIV;
  int32_t lane = 0;            // AIV lane (0 or 1); 0 for the AIC
  int64_t dispatch_ns = 0;     // a worker took the block from the ready queue
  int64_t start_ns = 0;        // this core's kernel started
  int64_t end_ns = 0;          // and returned
  int64_t retire_ns = 0;       // the runtime recorded the block as finished
  CoreCounters counters;       // what the performance model charged this core's kernel
};

// A buffer the run's tensor arguments are views of (one storage root).
struct TensorTrace {
  int64_t tensor_id = 0;       // numbered in order of first use in the run
  uintptr_t buffer_addr = 0;   // the root's base address
  int64_t bytes = 0;
  ir::DataType dtype;          // of the first view seen
  // Per dim, the extent the run's views of it reach (origin + shape), in the
  // root's index space: the root's shape where a view covers its end.
  std::vector<int64_t> shape;
};

struct ArgTrace {
  int32_t index = 0;
  ArgDirection direction = ArgDirection::Input;
  int64_t tensor_id = -1;      // -1 for scalars
  std::vector<int64_t> shape;
  std::vector<int64_t> offsets;  // where the view starts in its root
  int64_t scalar = 0;
};

// Why a task waits for an earlier one through its arguments: argument `arg`
// of the waiting task may overlap argument `pred_arg` of `pred`, one of them
// writing.
struct OverlapCause {
  TaskId pred = 0;
  int32_t arg = 0;
  int32_t pred_arg = 0;
};

// Which tensor arguments a traced run dumps (RunConfig.enable_dump_args):
// none, those viewing a tensor tagged with Runtime::TagForDump, or every one.
enum class ArgsDump { Off, Tagged, All };

// The contents of a tensor argument of a task (Runtime::SetArgsDump): inputs
// as the task's first block saw them, outputs as its last block left them;
// the view's elements in row-major order.
struct ArgDump {
  int32_t arg = 0;
  bool after = false;  // false: before the task ran (Input, InOut, NoDep); true: after (outputs, InOut, NoDep)
  std::vector<uint8_t> bytes;
};

struct TaskTrace {
  TaskId id = 0;
  std::string kernel;                 // KernelSet::name(); "join" for a join
  std::vector<std::string> kernels;   // AIC, then AIV lanes, of those it has
  int32_t core_num = 1;               // 0 for a join
  std::vector<ArgTrace> args;
  std::vector<TaskId> deps;           // what Runtime::DependenciesOf returns
  std::vector<TaskId> explicit_deps;  // the deps= of the submit, in this run
  std::vector<OverlapCause> overlaps;
  int64_t submit_begin_ns = 0;        // the orchestration called submit
  int64_t submit_end_ns = 0;          // and it returned
  int64_t ready_ns = -1;              // its blocks were queued; -1 if never (a join, a cancelled task)
  std::vector<CoreSpan> spans;        // by block, then core
  std::vector<ArgDump> dumps;         // with Runtime::SetArgsDump: by argument, before then after
};

// One scope instance (scope_begin .. scope_end) opened while tracing was on,
// with what the tasks submitted inside it (nested scopes' too) asked of the
// runtime: the figures a device's rings must hold for it.
struct ScopeTrace {
  int64_t scope_id = 0;
  int64_t parent_id = -1;           // the enclosing scope; -1 at the top
  std::string mode;                 // "auto", "manual", "parallel"
  int32_t depth = 0;                // 0 at the top
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
  int64_t iterations = 0;           // parallel scopes: iterations that submitted a task
  int64_t tasks = 0;                // submitted while it was open
  int64_t peak_tasks_in_flight = 0; // submitted and unfinished at once, at most, while it was open
  int64_t dep_edges = 0;            // dependencies of its tasks
  int64_t peak_tensormap_entries = 0;  // tensor accesses the runtime tracked at once, at most, while it was open
  int64_t heap_bytes = 0;           // tensors the orchestration created while it was open
};

struct RunTrace {
  int32_t clusters = 0;          // of the runtime: cores that ran nothing have tracks too
  std::vector<TaskTrace> tasks;  // by id
  std::vector<TensorTrace> tensors;
  std::vector<ScopeTrace> scopes;  // by begin time
};

}  // namespace pypto::runtime
