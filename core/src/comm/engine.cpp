// The transport-independent half of Engine: argument checks with actionable
// messages, the window map, and the wait loop with its deadline and alarm.
#include "pypto/comm/engine.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <vector>

#include "pypto/support/strings.h"

namespace pypto::comm {
namespace {

constexpr int64_t kWindowAlignment = 64;
constexpr int64_t kCellBytes = sizeof(int32_t);
// The control window holds one INT32 cell per rank: the alarm (0, or the rank that timed out + 1).
constexpr int64_t kControlWindowBytes = kWindowAlignment;

std::string Hex(const void* address) {
  std::ostringstream os;
  os << address;
  return os.str();
}

std::string Seconds(double s) {
  std::ostringstream os;
  os.precision(s < 10 ? 2 : 1);
  os << std::fixed << s << " s";
  return os.str();
}

double TimeoutFromEnvironment() {
  const char* text = std::getenv("PYPTO_COMM_TIMEOUT_S");
  if (text == nullptr || *text == '\0') return kDefaultWaitTimeoutSeconds;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds > 0)) {
    ThrowValueError(std::string("PYPTO_COMM_TIMEOUT_S='") + text +
                    "' is not a number of seconds > 0; unset it (default " + Seconds(kDefaultWaitTimeoutSeconds) +
                    ") or set it like PYPTO_COMM_TIMEOUT_S=120");
  }
  return seconds;
}

bool Holds(int32_t value, int32_t expected, WaitCmp cmp) {
  return cmp == WaitCmp::kEq ? value == expected : value >= expected;
}

// Yields first (a notify usually lands within microseconds), then sleeps with
// a growing pause so that waiting ranks leave the cores to the working ones.
class Backoff {
 public:
  void Pause() {
    if (polls_++ < kYieldPolls) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(pause_);
    pause_ = std::min(pause_ * 2, kMaxPause);
  }

 private:
  static constexpr int kYieldPolls = 64;
  static constexpr std::chrono::microseconds kMaxPause{1000};
  int polls_ = 0;
  std::chrono::microseconds pause_{10};
};

bool AtomicAddSupported(ir::DataType dtype) {
  using ir::DataType;
  return dtype == DataType::FP32 || dtype == DataType::FP16 || dtype == DataType::BF16 ||
         dtype == DataType::INT32 || dtype == DataType::INT16 || dtype == DataType::INT8;
}

std::string DescribeFailure(const WaitFailure& f) {
  std::ostringstream os;
  std::string cell = "signal cell (window " + std::to_string(f.window) + ", byte offset " +
                     std::to_string(f.offset) + ") holds " + std::to_string(f.value) + ", waiting for it to be " +
                     WaitCmpSymbol(f.cmp) + " " + std::to_string(f.expected);
  if (f.alarm_rank == f.rank) {
    os << "comm wait timed out on rank " << f.rank << " after " << Seconds(f.elapsed_s) << ": " << cell
       << ". This is a wait with no matching notify: check peers notify this cell; notify writes row `me` on the "
          "peer, wait reads the sender's row locally; do all notifies before the waits, and check the expected "
          "value is reachable (an Eq wait misses a counter that already went past it: prefer Ge). The other "
          "ranks' waits were stopped too. If the peers are merely slow, raise the timeout "
          "(PYPTO_COMM_TIMEOUT_S or comm_set_wait_timeout).";
  } else {
    os << "comm wait on rank " << f.rank << " stopped after " << Seconds(f.elapsed_s) << " because rank "
       << f.alarm_rank << " timed out first: " << cell << ". Look at rank " << f.alarm_rank
       << "'s error for the cell that never came; this wait is likely a consequence of it.";
  }
  return os.str();
}

}  // namespace

const char* NotifyOpName(NotifyOp op) { return op == NotifyOp::kSet ? "Set" : "AtomicAdd"; }
const char* WaitCmpSymbol(WaitCmp cmp) { return cmp == WaitCmp::kEq ? "==" : ">="; }

const char* ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "Sum";
    case ReduceOp::kMax: return "Max";
    case ReduceOp::kMin: return "Min";
    case ReduceOp::kProd: return "Prod";
  }
  return "?";
}

namespace {
template <class Enum>
Enum EnumFromInt(int32_t value, int32_t count, const std::string& what, const std::string& values) {
  if (value < 0 || value >= count) {
    ThrowValueError(what + " " + std::to_string(value) + " is not valid; use " + values);
  }
  return static_cast<Enum>(value);
}
}  // namespace

NotifyOp NotifyOpFromInt(int32_t value, const std::string& what) {
  return EnumFromInt<NotifyOp>(value, 2, what, "0 (AtomicAdd) or 1 (Set)");
}
WaitCmp WaitCmpFromInt(int32_t value, const std::string& what) {
  return EnumFromInt<WaitCmp>(value, 2, what, "0 (Eq) or 1 (Ge)");
}
AtomicType AtomicTypeFromInt(int32_t value, const std::string& what) {
  return EnumFromInt<AtomicType>(value, 2, what, "0 (None) or 1 (Add)");
}
ReduceOp ReduceOpFromInt(int32_t value, const std::string& what) {
  return EnumFromInt<ReduceOp>(value, 4, what, "0 (Sum), 1 (Max), 2 (Min) or 3 (Prod)");
}

std::string DomainText(const Domain& domain, int world_size) {
  if (domain.size() == world_size) return "the world (" + std::to_string(world_size) + " ranks)";
  std::vector<std::string> ranks;
  for (int r : domain.members) ranks.push_back(std::to_string(r));
  return "comm domain {" + Join(ranks, ", ") + "}";
}

WaitTimeoutError::WaitTimeoutError(const WaitFailure& failure)
    : Error(ErrorKind::kRuntime, DescribeFailure(failure)), failure_(failure) {}

Engine::Engine() : wait_timeout_s_(TimeoutFromEnvironment()) {}

void Engine::Open() {
  PYPTO_CHECK(control_window_ < 0, "Engine::Open runs once, from comm::Start");
  PYPTO_CHECK(DomainOf({})->id == kWorldDomain, "the world is the first comm domain");
  control_window_ = AllocWindowRecord(kControlWindowBytes, {}, /*internal=*/true).id;
}

Window Engine::AllocWindow(int64_t bytes, const std::vector<int>& members) {
  return AllocWindowRecord(bytes, members, /*internal=*/false);
}

std::shared_ptr<const Domain> Engine::DomainOf(const std::vector<int>& members) {
  std::vector<int> set = members;
  if (set.empty()) {
    for (int r = 0; r < WorldSize(); ++r) set.push_back(r);
  }
  const std::string where = "comm alloc_window on rank " + std::to_string(Rank()) + ": members [" +
                            JoinMapped(set, ", ", [](int r) { return std::to_string(r); }) + "]";
  for (size_t i = 0; i < set.size(); ++i) {
    if (set[i] < 0 || set[i] >= WorldSize()) {
      ThrowValueError(where + " name rank " + std::to_string(set[i]) + ", not a rank of the world (0.." +
                      std::to_string(WorldSize() - 1) + "); members are world ranks");
    }
    if (i > 0 && set[i] <= set[i - 1]) {
      ThrowValueError(where + " are not distinct and ascending; give each world rank once, sorted");
    }
  }
  auto position = std::find(set.begin(), set.end(), Rank());
  if (position == set.end()) {
    ThrowValueError(where + " do not include this rank; only the members of a comm domain allocate its windows "
                    "(the other ranks skip the call)");
  }
  if (auto found = domains_.find(set); found != domains_.end()) return found->second;
  auto domain = std::make_shared<Domain>();
  domain->id = static_cast<int32_t>(domains_.size());  // the world, created first by Open, is kWorldDomain
  domain->members = set;
  domain->rank = static_cast<int>(position - set.begin());
  DoCreateDomain(domain->id, set);
  domains_[set] = domain;
  return domain;
}

Window Engine::AllocWindowRecord(int64_t bytes, const std::vector<int>& members, bool internal) {
  if (bytes <= 0) {
    ThrowValueError("comm alloc_window on rank " + std::to_string(Rank()) + ": " + std::to_string(bytes) +
                    " bytes; a window needs at least one byte (pld.alloc_window_buffer takes a size in bytes)");
  }
  std::shared_ptr<const Domain> domain = DomainOf(members);
  // Symmetry is what makes one offset name one cell everywhere, so a mismatch stops every member here.
  std::vector<int64_t> sizes(domain->size());
  DoAllGather(domain->id, &bytes, sizes.data(), sizeof(int64_t));
  for (int r = 0; r < domain->size(); ++r) {
    if (sizes[r] != bytes) {
      ThrowValueError("comm alloc_window is collective and symmetric, but rank " + std::to_string(Rank()) +
                      " asked for " + std::to_string(bytes) + " bytes and rank " + std::to_string(domain->members[r]) +
                      " for " + std::to_string(sizes[r]) + " (in " + DomainText(*domain, WorldSize()) +
                      "); every member must allocate the same windows, in the same order, with the same sizes");
    }
  }
  int32_t id;
  {
    std::lock_guard<std::mutex> lock(windows_mutex_);
    id = next_window_id_++;
  }
  void* base = DoAllocWindow(id, domain->id, bytes);
  PYPTO_CHECK(reinterpret_cast<uintptr_t>(base) % kWindowAlignment == 0,
              Name() + " engine returned window " + std::to_string(id) + " at " + Hex(base) +
                  ", not 64-byte aligned");
  Window window{id, base, bytes, domain};
  std::lock_guard<std::mutex> lock(windows_mutex_);
  windows_[id] = WindowRecord{window, internal};
  return window;
}

void Engine::FreeWindow(int32_t id) {
  Lookup(id, "free_window");
  DoFreeWindow(id);
  std::lock_guard<std::mutex> lock(windows_mutex_);
  windows_.erase(id);
}

std::optional<WindowAddress> Engine::Locate(const void* address) const {
  auto p = reinterpret_cast<uintptr_t>(address);
  std::lock_guard<std::mutex> lock(windows_mutex_);
  for (const auto& [id, record] : windows_) {
    if (record.internal) continue;
    auto base = reinterpret_cast<uintptr_t>(record.window.base);
    if (p >= base && p < base + static_cast<uintptr_t>(record.window.bytes)) {
      return WindowAddress{id, static_cast<int64_t>(p - base), record.window.bytes, record.window.domain};
    }
  }
  return std::nullopt;
}

WindowAddress Engine::Resolve(const void* address, const std::string& op) const {
  if (auto found = Locate(address)) return *found;
  std::vector<std::string> windows;
  {
    std::lock_guard<std::mutex> lock(windows_mutex_);
    for (const auto& [id, record] : windows_) {
      if (record.internal) continue;
      windows.push_back("#" + std::to_string(id) + " at " + Hex(record.window.base) + " (" +
                        std::to_string(record.window.bytes) + " bytes)");
    }
  }
  ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": address " + Hex(address) +
                  " is not inside any window of this rank (" +
                  (windows.empty() ? std::string("none allocated") : "windows " + Join(windows, ", ")) +
                  "); the tensor is not a window buffer (pld.alloc_window_buffer / pld.window)");
}

// The control window is the engine's own: its id is not a user's window.
Window Engine::Lookup(int32_t id, const std::string& op) const {
  std::lock_guard<std::mutex> lock(windows_mutex_);
  auto it = windows_.find(id);
  if (it == windows_.end() || it->second.internal) {
    ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": there is no window " +
                    std::to_string(id) + " (freed, or never allocated); use the id AllocWindow returned");
  }
  return it->second.window;
}

void Engine::CheckPeer(const Window& window, int peer, const std::string& op) const {
  const Domain& domain = *window.domain;
  if (peer >= 0 && peer < domain.size()) return;
  std::string prefix = "comm " + op + " on rank " + std::to_string(Rank()) + ": peer " + std::to_string(peer) +
                       " is out of range; ";
  if (domain.size() == WorldSize()) {
    ThrowValueError(prefix + "the job has " + std::to_string(WorldSize()) + " ranks, so peers are 0.." +
                    std::to_string(WorldSize() - 1) + " (compute peers modulo pld.nranks)");
  }
  ThrowValueError(prefix + "window " + std::to_string(window.id) + " belongs to " + DomainText(domain, WorldSize()) +
                  " of " + std::to_string(domain.size()) + " ranks, so peers are its domain ranks 0.." +
                  std::to_string(domain.size() - 1) + " (a position in the member list, not a world rank; compute "
                  "peers modulo pld.nranks(ctx))");
}

void Engine::CheckRegion(const Window& window, int64_t offset, int64_t row_stride, int64_t rows, int64_t row_bytes,
                         const std::string& op, const std::string& side) const {
  std::string where = "comm " + op + " on rank " + std::to_string(Rank()) + ": the " + side + " region";
  if (rows < 0 || row_bytes < 0) {
    ThrowValueError(where + " has " + std::to_string(rows) + " rows of " + std::to_string(row_bytes) +
                    " bytes; both must be >= 0");
  }
  if (rows > 1 && row_stride < row_bytes) {
    ThrowValueError(where + " has rows " + std::to_string(row_stride) + " bytes apart but " +
                    std::to_string(row_bytes) + " bytes long, so they overlap; the row stride must be >= the row size");
  }
  if (rows == 0 || row_bytes == 0) return;
  int64_t end = offset + (rows - 1) * row_stride + row_bytes;
  if (offset < 0 || end > window.bytes) {
    ThrowValueError(where + " [" + std::to_string(offset) + ", " + std::to_string(end) + ") (" +
                    std::to_string(rows) + " rows of " + std::to_string(row_bytes) + " bytes, " +
                    std::to_string(row_stride) + " bytes apart) runs past the end of window " +
                    std::to_string(window.id) + " (" + std::to_string(window.bytes) + " bytes) by " +
                    std::to_string(offset < 0 ? -offset : end - window.bytes) +
                    " bytes; shrink the region or its offset, or allocate a larger window");
  }
}

void Engine::CheckCell(const Window& window, int64_t offset, const std::string& op) const {
  if (offset < 0 || offset % kCellBytes != 0 || offset + kCellBytes > window.bytes) {
    ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": byte offset " + std::to_string(offset) +
                    " is not an INT32 cell of window " + std::to_string(window.id) + " (" +
                    std::to_string(window.bytes) + " bytes); a signal cell is 4-byte aligned and inside the window "
                    "(signals are INT32 window tensors)");
  }
}

void Engine::Put(int32_t window, int peer, int64_t dst_offset, int64_t dst_row_stride, const void* src,
                 int64_t src_row_stride, int64_t rows, int64_t row_bytes, ir::DataType dtype, AtomicType atomic) {
  const std::string op = atomic == AtomicType::kAdd ? "put (atomic Add)" : "put";
  const Window w = Lookup(window, op);
  CheckPeer(w, peer, op);
  CheckRegion(w, dst_offset, dst_row_stride, rows, row_bytes, op, "destination");
  if (atomic == AtomicType::kAdd) {
    if (!AtomicAddSupported(dtype)) {
      ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": atomic Add does not support dtype " +
                      dtype.name() + "; it accumulates FP32, FP16, BF16, INT32, INT16 and INT8 (cast first, or "
                      "use atomic=None)");
    }
    int64_t element = dtype.get_byte();
    if (row_bytes % element != 0 || dst_offset % element != 0 || (rows > 1 && dst_row_stride % element != 0)) {
      ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": the destination (offset " +
                      std::to_string(dst_offset) + ", rows of " + std::to_string(row_bytes) + " bytes, " +
                      std::to_string(dst_row_stride) + " bytes apart) is not made of whole " + dtype.name() +
                      " elements; offsets, strides and sizes must be multiples of " + std::to_string(element) +
                      " bytes");
    }
  }
  if (rows == 0 || row_bytes == 0) return;
  if (src == nullptr) ThrowValueError("comm " + op + " on rank " + std::to_string(Rank()) + ": the source is NULL");
  DoPut(window, peer, dst_offset, dst_row_stride, src, src_row_stride, rows, row_bytes, dtype, atomic);
}

void Engine::Get(void* dst, int64_t dst_row_stride, int32_t window, int peer, int64_t src_offset,
                 int64_t src_row_stride, int64_t rows, int64_t row_bytes) {
  const Window w = Lookup(window, "get");
  CheckPeer(w, peer, "get");
  CheckRegion(w, src_offset, src_row_stride, rows, row_bytes, "get", "source");
  if (rows == 0 || row_bytes == 0) return;
  if (dst == nullptr) ThrowValueError("comm get on rank " + std::to_string(Rank()) + ": the destination is NULL");
  DoGet(dst, dst_row_stride, window, peer, src_offset, src_row_stride, rows, row_bytes);
}

void Engine::Notify(int32_t window, int peer, int64_t offset, int32_t value, NotifyOp op) {
  const Window w = Lookup(window, "notify");
  CheckPeer(w, peer, "notify");
  CheckCell(w, offset, "notify");
  DoNotify(window, peer, offset, value, op);
}

int32_t Engine::ReadSignal(int32_t window, int64_t offset) {
  CheckCell(Lookup(window, "read_signal"), offset, "read_signal");
  return DoReadSignal(window, offset);
}

void Engine::Wait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp) {
  auto timeout = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(WaitTimeout()));
  Wait(window, offset, expected, cmp, Clock::now() + timeout);
}

void Engine::Wait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline deadline) {
  CheckCell(Lookup(window, "wait"), offset, "wait");
  const Deadline started = Clock::now();
  Backoff backoff;
  while (!Poll(window, offset, expected, cmp, started, deadline)) backoff.Pause();
}

bool Engine::PollWait(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline started,
                      Deadline deadline) {
  CheckCell(Lookup(window, "wait"), offset, "wait");
  return Poll(window, offset, expected, cmp, started, deadline);
}

bool Engine::Poll(int32_t window, int64_t offset, int32_t expected, WaitCmp cmp, Deadline started,
                  Deadline deadline) {
  int32_t value = DoReadSignal(window, offset);
  if (Holds(value, expected, cmp)) {
    DoAcquire(window);
    return true;
  }
  WaitFailure failure{Rank(), window, offset, value, expected, cmp, 0, -1};
  if (auto by = AlarmRaisedBy()) {
    failure.alarm_rank = *by;
    FailWait(failure, started);
  }
  if (Clock::now() >= deadline) {
    RaiseAlarm();
    failure.alarm_rank = Rank();
    FailWait(failure, started);
  }
  return false;
}

void Engine::FailWait(WaitFailure failure, Deadline started) {
  failure.elapsed_s = std::chrono::duration<double>(Clock::now() - started).count();
  throw WaitTimeoutError(failure);
}

void Engine::RaiseAlarm() {
  for (int peer = 0; peer < WorldSize(); ++peer) DoNotify(control_window_, peer, 0, Rank() + 1, NotifyOp::kSet);
}

std::optional<int> Engine::AlarmRaisedBy() {
  if (control_window_ < 0) return std::nullopt;
  int32_t value = DoReadSignal(control_window_, 0);
  if (value == 0) return std::nullopt;
  return value - 1;
}

void Engine::ClearAlarm() {
  // The first barrier orders every alarm raised so far before the reset; the second keeps a rank
  // from waiting (and seeing a stale alarm) before every rank has reset.
  DoBarrier();
  DoNotify(control_window_, Rank(), 0, 0, NotifyOp::kSet);
  DoBarrier();
}

void Engine::SetWaitTimeout(double seconds) {
  if (!(seconds > 0)) {
    ThrowValueError("comm wait timeout " + std::to_string(seconds) + " s: it must be > 0 seconds");
  }
  wait_timeout_s_ = seconds;
}

double Engine::WaitTimeout() const { return wait_timeout_s_; }

void Engine::Barrier() { DoBarrier(); }

void Engine::AllReduce(void* buf, int64_t count, ir::DataType dtype, ReduceOp op) {
  if (count < 0) ThrowValueError("comm allreduce: count " + std::to_string(count) + " must be >= 0");
  if (count > 0 && buf == nullptr) ThrowValueError("comm allreduce: the buffer is NULL");
  DoAllReduce(buf, count, dtype, op);
}

void Engine::Broadcast(void* buf, int64_t bytes, int root) {
  if (root < 0 || root >= WorldSize()) {
    ThrowValueError("comm broadcast on rank " + std::to_string(Rank()) + ": root " + std::to_string(root) +
                    " is not a rank of the world (0.." + std::to_string(WorldSize() - 1) + ")");
  }
  if (bytes < 0) ThrowValueError("comm broadcast: " + std::to_string(bytes) + " bytes; it must be >= 0");
  if (bytes > 0 && buf == nullptr) ThrowValueError("comm broadcast: the buffer is NULL");
  DoBroadcast(buf, bytes, root);
}

void Engine::AllGather(const void* send, void* recv, int64_t bytes_per_rank) {
  if (bytes_per_rank < 0) {
    ThrowValueError("comm allgather: " + std::to_string(bytes_per_rank) + " bytes per rank; it must be >= 0");
  }
  if (bytes_per_rank > 0 && (send == nullptr || recv == nullptr)) {
    ThrowValueError("comm allgather: the send or receive buffer is NULL");
  }
  DoAllGather(kWorldDomain, send, recv, bytes_per_rank);
}

}  // namespace pypto::comm
