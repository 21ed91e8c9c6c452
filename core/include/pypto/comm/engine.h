// The communication engine: what distributed (pld) programs run on. One
// engine per process; each process is one rank. Plugins of kind `comm`
// implement it on an existing transport (MPI-3 RMA, ...); the core validates
// every call, keeps the window map that turns local addresses into
// (window, offset), and runs the wait loop with its deadline and job-wide alarm.
//
// Windows are symmetric: AllocWindow is collective, every rank passes the same
// size and gets a zeroed, 64-byte aligned buffer, and a byte offset names the
// same cell on every rank (the bases differ).
//
// Every window belongs to a comm domain (spec/distributed.md §4.3): the world,
// or a subset of its ranks given to AllocWindow as `members`. Only the members
// allocate (and free) it, and inside the domain ranks are dense: a rank is its
// position in the ascending member list, so in the domain {1, 2} world rank 1
// is domain rank 0 and world rank 2 is domain rank 1. The peers of Put, Get and
// Notify are domain ranks of the window addressed. A rank may be in several
// domains. The wait deadline's alarm stays job-wide.
//
// Ordering contract (what generated kernels rely on; spec/distributed.md §6):
//  * Put (plain or atomic) is complete at the target when it returns.
//  * Get is complete (the data is in `dst`) when it returns.
//  * Notify is visible at the target only after every earlier Put of this
//    process to that peer, and after this process's earlier local stores
//    into any window: put/store -> notify is a release.
//  * Wait returns once the condition holds, after an acquire fence: local
//    loads made after it see the data the peers put before their notify.
//  * Notify and the atomic Put are atomic with respect to each other and to
//    themselves (per dtype); ReadSignal is an atomic read of one cell.
// Every member is thread-safe: simulated cores of one process call Put, Get,
// Notify and Wait concurrently. Collectives (AllocWindow, FreeWindow, Barrier,
// AllReduce, Broadcast, AllGather, ClearAlarm) are called by every rank (every
// member of the window's domain for AllocWindow and FreeWindow) in the same
// order, by one thread per rank at a time. Barrier, AllReduce, Broadcast and
// AllGather span the world.
//
// A hang is an error: a Wait that does not see its condition before its
// deadline raises a job-wide alarm (every rank's control cell is set to the
// waiting rank + 1) and throws WaitTimeoutError; every other rank inside a Wait sees
// the alarm and throws too, naming the rank that timed out first.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/dtype.h"
#include "pypto/support/error.h"

namespace pypto::comm {

// ABI values: generated code passes them as plain integers.
enum class NotifyOp : int32_t { kAtomicAdd = 0, kSet = 1 };
enum class WaitCmp : int32_t { kEq = 0, kGe = 1 };
enum class AtomicType : int32_t { kNone = 0, kAdd = 1 };
enum class ReduceOp : int32_t { kSum = 0, kMax = 1, kMin = 2, kProd = 3 };

const char* NotifyOpName(NotifyOp op);    // "Set", "AtomicAdd"
const char* WaitCmpSymbol(WaitCmp cmp);   // "==", ">="
const char* ReduceOpName(ReduceOp op);    // "Sum", "Max", "Min", "Prod"
// Converts an ABI integer, or throws a ValueError naming `what` and the valid values.
NotifyOp NotifyOpFromInt(int32_t value, const std::string& what);
WaitCmp WaitCmpFromInt(int32_t value, const std::string& what);
AtomicType AtomicTypeFromInt(int32_t value, const std::string& what);
ReduceOp ReduceOpFromInt(int32_t value, const std::string& what);

// The ranks that share a window pool. Ids are this process's handles (the
// world is kWorldDomain); another rank may number the same domain otherwise.
struct Domain {
  int32_t id = -1;
  std::vector<int> members;  // world ranks, ascending
  int rank = -1;             // this process's position in `members`: its domain rank
  int size() const { return static_cast<int>(members.size()); }
};
inline constexpr int32_t kWorldDomain = 0;

// "the world (4 ranks)" or "comm domain {1, 2}", for messages.
std::string DomainText(const Domain& domain, int world_size);

struct Window {
  int32_t id = -1;  // this process's handle, like a domain's
  void* base = nullptr;  // this rank's local buffer
  int64_t bytes = 0;     // the size every member asked for
  std::shared_ptr<const Domain> domain;
};

// A local address resolved against the window map.
struct WindowAddress {
  int32_t window = -1;
  int64_t offset = 0;  // bytes from the window's base
  int64_t bytes = 0;   // the window's size
  std::shared_ptr<const Domain> domain;
};

using Clock = std::chrono::steady_clock;
using Deadline = Clock::time_point;

// The wait timeout when neither PYPTO_COMM_TIMEOUT_S nor SetWaitTimeout says otherwise.
inline constexpr double kDefaultWaitTimeoutSeconds = 60.0;

// What a Wait saw when it gave up, kept apart from the text so that callers
// (the C ABI's signal table) can add to the report.
struct WaitFailure {
  int rank = -1;
  int32_t window = -1;
  int64_t offset = 0;
  int32_t value = 0;
  int32_t expected = 0;
  WaitCmp cmp = WaitCmp::kEq;
  double elapsed_s = 0;
  int alarm_rank = -1;  // the rank that timed out first (this one, when it timed out itself)
};

class WaitTimeoutError : public Error {
 public:
  explicit WaitTimeoutError(const WaitFailure& failure);
  const WaitFailure& failure() const { return failure_; }

 private:
  WaitFailure failure_;
};

class Engine {
 public:
  virtual ~Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  virtual int Rank() const = 0;
  virtual int WorldSize() const = 0;
  virtual std::string HostName() const = 0;
  // The transport's name ("mpi"), for messages.
  virtual std::string Name() const = 0;

  // Collective over `members`: world ranks, distinct and ascending, this rank
  // among them (empty = the world). `bytes` > 0 and equal on every member.
  // Non-members do not call it. Members allocate the windows of one domain in
  // the same order, and overlapping domains in an order every rank agrees on.
  Window AllocWindow(int64_t bytes, const std::vector<int>& members = {});
  // Collective over the window's domain; the id must name a live window.
  void FreeWindow(int32_t id);
  // The live window `id`; an unknown id is a ValueError naming `op`.
  Window Lookup(int32_t id, const std::string& op) const;
  // The window a local address lies in; nullopt when it lies in none.
  std::optional<WindowAddress> Locate(const void* address) const;
  // Like Locate, but an address outside every window is a ValueError naming the address.
  WindowAddress Resolve(const void* address, const std::string& op) const;

  // Writes `rows` rows of `row_bytes` from `src` (rows `src_row_stride` bytes
  // apart) into window `window` of `peer` (a domain rank) at `dst_offset` (rows
  // `dst_row_stride` bytes apart). AtomicType::kAdd accumulates elementwise in
  // `dtype` (FP32, FP16, BF16, INT32, INT16, INT8).
  void Put(int32_t window, int peer, int64_t dst_offset, int64_t dst_row_stride, const void* src,
           int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype, AtomicType atomic);
  // Reads rows of `peer`'s window at `src_offset` into local memory `dst`.
  void Get(void* dst, int64_t dst_row_stride, int32_t window, int peer, int64_t src_offset, int64_t src_row_stride,
           int64_t rows, int64_t row_bytes);
  // Sets or adds to the INT32 cell at `offset` of `peer`'s window.
  void Notify(int32_t window, int peer, int64_t offset, int32_t value, NotifyOp op);
  // An atomic read of this rank's INT32 cell at `offset`.
  int32_t ReadSignal(int32_t window, int64_t offset);
  // Blocks until this rank's cell compares true against `expected`, or throws
  // WaitTimeoutError at `deadline` or when another rank raised the alarm.
  void Wait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline deadline);
  // Wait with the deadline now + WaitTimeout().
  void Wait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp);
  // One look at a Wait's condition, for waits that hold no thread (pld.system.defer_wait: the
  // runtime polls them): true, after the acquire, once it holds; false while it does not; throws
  // WaitTimeoutError like Wait past `deadline` or once another rank raised the alarm. `started` is
  // when the wait began, for the report.
  bool PollWait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline started, Deadline deadline);

  void Barrier();
  // In place on `count` elements of `dtype` at `buf`.
  void AllReduce(void* buf, int64_t count, ir::DataType dtype, ReduceOp op);
  void Broadcast(void* buf, int64_t bytes, int root);
  // `recv` holds WorldSize() * bytes_per_rank bytes, rank r's part at r * bytes_per_rank.
  void AllGather(const void* send, void* recv, int64_t bytes_per_rank);
  // Prints `message` and ends every rank of the job with `code`.
  [[noreturn]] virtual void Abort(int code, const std::string& message) = 0;

  // Seconds a Wait without an explicit deadline waits; > 0.
  void SetWaitTimeout(double seconds);
  double WaitTimeout() const;
  // The rank whose wait timed out first, once any rank of the job has.
  std::optional<int> AlarmRaisedBy();
  // Collective: forgets an alarm on every rank, so the job can go on (tests,
  // interactive sessions). Windows keep their contents.
  void ClearAlarm();

  // Called once by comm::Start right after the factory: sets up the world domain and allocates the control window.
  void Open();

 protected:
  Engine();

  // The transport. Arguments are validated before these are called; offsets
  // and extents lie inside the window, peers are domain ranks of the window's
  // domain, inside [0, its size).
  // DoCreateDomain: collective over `members` (world ranks, ascending, this
  // rank among them); sets up the transport's group whose rank i is members[i].
  // Called once per member set, before its first window; the world first, as
  // kWorldDomain.
  virtual void DoCreateDomain(int32_t domain, const std::vector<int>& members) = 0;
  // Collective over the domain's members. Returns a zeroed buffer of at least
  // `bytes`, 64-byte aligned.
  virtual void* DoAllocWindow(int32_t id, int32_t domain, int64_t bytes) = 0;
  virtual void DoFreeWindow(int32_t id) = 0;
  virtual void DoPut(int32_t window, int peer, int64_t dst_offset, int64_t dst_row_stride, const void* src,
                     int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype,
                     AtomicType atomic) = 0;
  virtual void DoGet(void* dst, int64_t dst_row_stride, int32_t window, int peer, int64_t src_offset,
                     int64_t src_row_stride, int64_t rows, int64_t row_bytes) = 0;
  virtual void DoNotify(int32_t window, int peer, int64_t offset, int32_t value, NotifyOp op) = 0;
  virtual int32_t DoReadSignal(int32_t window, int64_t offset) = 0;
  // Acquire: after it, local loads see what peers completed into the window.
  virtual void DoAcquire(int32_t window) = 0;
  virtual void DoBarrier() = 0;
  virtual void DoAllReduce(void* buf, int64_t count, ir::DataType dtype, ReduceOp op) = 0;
  virtual void DoBroadcast(void* buf, int64_t bytes, int root) = 0;
  // Over the domain's members; `recv` holds domain-rank order.
  virtual void DoAllGather(int32_t domain, const void* send, void* recv, int64_t bytes_per_rank) = 0;

 private:
  struct WindowRecord {
    Window window;
    bool internal = false;  // the control window: not visible to Locate
  };

  Window AllocWindowRecord(int64_t bytes, const std::vector<int>& members, bool internal);
  // The domain of `members` (validated; empty = the world), set up on first use.
  std::shared_ptr<const Domain> DomainOf(const std::vector<int>& members);
  // `peer` is a domain rank of `window`'s domain.
  void CheckPeer(const Window& window, int peer, const std::string& op) const;
  void CheckRegion(const Window& window, int64_t offset, int64_t row_stride, int64_t rows, int64_t row_bytes,
                   const std::string& op, const std::string& side) const;
  void CheckCell(const Window& window, int64_t offset, const std::string& op) const;
  void RaiseAlarm();
  // PollWait without the argument checks, which Wait makes once.
  bool Poll(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline started, Deadline deadline);
  [[noreturn]] void FailWait(WaitFailure failure, Deadline started);

  mutable std::mutex windows_mutex_;
  std::map<int32_t, WindowRecord> windows_;
  int32_t next_window_id_ = 0;
  // Touched only by the collectives AllocWindow and Open, which one thread per rank calls at a time.
  std::map<std::vector<int>, std::shared_ptr<const Domain>> domains_;
  int32_t control_window_ = -1;
  std::atomic<double> wait_timeout_s_;
};

}  // namespace pypto::comm
