// The cross-core pipe of one simulated cluster: the rings behind the TPUSH /
// TPOP / TFREE instructions of sdk/include/pypto/isa/pipe.h, which reach it
// through their core (SimCore::pipe) and the pypto_sim_pipe_* functions.
//
// Per direction (C2V, V2C) and AIV lane, a ring of slot_num slots. A ring's
// state is three counts: tiles pushed, popped and freed; slot k % slot_num
// holds the k-th tile. The producer may fill a slot while pushed - freed <
// slot_num (and the consumer has initialized its end), the consumer may pop
// while popped < pushed and free while freed < popped.
//
// Whoever runs the cluster's cores on threads (the runtime for a cluster
// task, a test) calls Begin before the block's kernels start and Finish as
// each returns. A wait then ends in a Pipe fault, never a hang: at once when
// every core of the cluster still running is waiting on the pipe (nobody can
// serve anybody), or after the timeout when a peer is busy elsewhere for that
// long. The fault's report names the kernel, the ring, each side's counts and
// the likely cause. Once one wait has failed the pipe is broken: every later
// pipe op of the block fails at once, so the kernels run to their end.
//
// While a core's performance model counts (core.perf: a traced run), the
// pipe also charges its transfers to it and keeps device time across the
// cluster: each slot carries the cycle its tile was pushed (ready on the
// producer), popped and freed, so a pop starts no earlier than its push was
// done and a push into a full ring no earlier than the free of its slot
// (PerfModel::IssueAfter). Every core's model counts from its kernel's start,
// and a cluster's kernels start together, so the cycles compare. The
// numbers depend only on each core's program and the rings' FIFO order, not
// on how the host's threads ran. Each member's transfers and waits (host and
// device time) are recorded for the trace (Collect).
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "pypto/isa/perf_model.h"
#include "pypto/isa/pipe.h"
#include "pypto/isa/sim_core.h"
#include "pypto/runtime/trace.h"

namespace pto {

struct SimPipe {
 public:
  static constexpr int kMembers = 3;  // 0 the AIC, 1 + lane the AIV lanes
  static constexpr int kLanes = 2;
  static constexpr int kDirs = 2;      // PipeDir
  static constexpr int kMaxSlots = 8;  // the hardware's flags per direction and Vector-Cube pair

  // timeout_s: how long one wait may last while some core of the cluster
  // still runs (PipeTimeoutFromEnvironment() in the simulator).
  explicit SimPipe(double timeout_s);

  // A block of the cluster task `kernel` starts on `members` (bit m: member m
  // runs a kernel): every ring is empty and unconfigured again.
  void Begin(const std::string& kernel, uint32_t members);
  // Member m's kernel returned (or never started): no wait on it can end.
  // After the last, pipe ops fault: a kernel running alone has no pipe.
  void Finish(int member);

  // The pypto_sim_pipe_* functions, for `core` (a member of this cluster).
  bool Init(SimCore& core, bool aic, int32_t dir_mask, int64_t slot_size, int32_t slot_num, const char* instruction);
  int32_t Lanes(SimCore& core, const char* instruction);
  unsigned char* Reserve(SimCore& core, PipeDir dir, int lane, int64_t bytes, const char* instruction);
  // `cost` (may be null) charges the transfer to core.perf when it counts.
  void Publish(SimCore& core, PipeDir dir, int lane, const PipeTileShape& shape, const PipeCost* cost);
  const unsigned char* Take(SimCore& core, PipeDir dir, int lane, PipeTileShape& shape, const PipeCost* cost,
                            const char* instruction);
  bool Release(SimCore& core, PipeDir dir, int lane, const char* instruction);

  // Moves what member m's kernel did on the pipe while its core counted
  // (transfers, bytes, waits) into `out`, and forgets it.
  void Collect(int member, pypto::runtime::CoreCounters& out);

 private:
  struct Ring {
    std::vector<unsigned char> bytes;  // slot_num * slot_size
    std::array<PipeTileShape, kMaxSlots> shapes{};
    // Device time (cycles since the block's kernels started), per slot: when
    // its tile was pushed (ready), popped (ready) and its slot freed.
    std::array<uint64_t, kMaxSlots> pushed_at{};
    std::array<uint64_t, kMaxSlots> popped_at{};
    std::array<uint64_t, kMaxSlots> freed_at{};
    uint64_t consumer_init_at = 0;  // the consumer's init freed every slot
    int64_t pushed = 0;
    int64_t popped = 0;
    int64_t freed = 0;
    bool producer_ready = false;  // the producer's init set this ring up
    bool consumer_ready = false;  // the consumer's init freed every slot
  };
  struct Direction {
    int64_t slot_size = 0;  // 0: no end initialized it yet
    int32_t slot_num = 0;
    std::array<Ring, kLanes> rings;
  };
  enum class State { Idle, Running, Waiting, Finished };
  struct Member {
    State state = State::Idle;
    // While Waiting: the instruction, its ring and its end of it.
    const char* instruction = nullptr;
    PipeDir dir = PipeDir::C2V;
    int lane = 0;
    bool producer = false;
    // The host time of this core's last wait (equal when it did not block).
    int64_t wait_begin_ns = 0;
    int64_t wait_end_ns = 0;
    // What its kernel did on the pipe while its core counted.
    pypto::runtime::PipeCounters counters;
    std::vector<pypto::runtime::PipeWait> waits;
  };
  enum class Cause { Deadlock, TimedOut, Broken };

  static int Producer(PipeDir dir, int lane) { return dir == PipeDir::C2V ? 0 : 1 + lane; }
  static int Consumer(PipeDir dir, int lane) { return dir == PipeDir::C2V ? 1 + lane : 0; }
  int LaneCount() const;
  // Whether waiting member m's wait could end now.
  bool CanGo(const Member& m) const;
  // No core can make progress: each is idle, finished or in a wait that cannot end now.
  bool Stuck() const;

  // Checks that a block of a cluster task runs (else a fault on `core`).
  bool Active(SimCore& core, const char* instruction);
  // Checks that the pipe works, that `core` is the producer (consumer) of
  // ring (dir, lane) and that its init set its end up.
  bool Allowed(SimCore& core, PipeDir dir, int lane, bool producer, const char* instruction);
  // Waits (lock held) until `core`'s end of ring (dir, lane) can go on;
  // false, with the pipe's report as a fault on `core`, when it never will.
  bool Wait(std::unique_lock<std::mutex>& lock, SimCore& core, PipeDir dir, int lane, bool producer,
            const char* instruction);
  void Fail(SimCore& core, const char* instruction, const std::string& text);
  // A counted transfer of `member`: its wait (if it waited in either clock) and its traffic.
  void Record(int member, const char* instruction, PipeDir dir, int lane, bool producer,
              const PerfModel::Issued& issued, int64_t bytes);
  // The fault text of `member`'s failed wait: why, then every core's state.
  std::string Report(int member, Cause cause) const;
  // One core's state; for a wait: its ring's counts and the likely cause.
  std::string Describe(int member) const;

  const double timeout_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::string kernel_;
  std::array<Member, kMembers> members_;
  std::array<Direction, kDirs> dirs_;
  bool active_ = false;  // between Begin and the last member's Finish
  bool broken_ = false;  // a wait failed: every later op fails at once
  std::string broken_report_;  // the failed wait's report, for the cores that waited with it
};

// PYPTO_PIPE_TIMEOUT_S, or the default; a malformed value is a ValueError.
double PipeTimeoutFromEnvironment();

}  // namespace pto

extern "C" {
__attribute__((visibility("default"))) int32_t pypto_sim_pipe_init(pto::SimCore* core, int32_t aic,
                                                                   int32_t dir_mask, int64_t slot_size,
                                                                   int32_t slot_num, const char* instruction);
__attribute__((visibility("default"))) int32_t pypto_sim_pipe_lanes(pto::SimCore* core, const char* instruction);
__attribute__((visibility("default"))) unsigned char* pypto_sim_pipe_reserve(pto::SimCore* core, int32_t dir,
                                                                             int32_t lane, int64_t bytes,
                                                                             const char* instruction);
__attribute__((visibility("default"))) void pypto_sim_pipe_publish(pto::SimCore* core, int32_t dir, int32_t lane,
                                                                   const pto::PipeTileShape* shape);
__attribute__((visibility("default"))) const unsigned char* pypto_sim_pipe_take(pto::SimCore* core, int32_t dir,
                                                                                int32_t lane,
                                                                                pto::PipeTileShape* shape,
                                                                                const char* instruction);
__attribute__((visibility("default"))) void pypto_sim_pipe_publish_counted(pto::SimCore* core, int32_t dir,
                                                                           int32_t lane,
                                                                           const pto::PipeTileShape* shape,
                                                                           const pto::PipeCost* cost);
__attribute__((visibility("default"))) const unsigned char* pypto_sim_pipe_take_counted(
    pto::SimCore* core, int32_t dir, int32_t lane, pto::PipeTileShape* shape, const pto::PipeCost* cost,
    const char* instruction);
__attribute__((visibility("default"))) int32_t pypto_sim_pipe_release(pto::SimCore* core, int32_t dir, int32_t lane,
                                                                      const char* instruction);
}
