#include "pypto/backend/sim_pipe.h"

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "pypto/support/error.h"

namespace pto {

namespace {

// Long enough for any peer that is merely computing between two transfers;
// a wait that cannot end is found at once (every core blocked or finished).
constexpr double kDefaultPipeTimeoutSeconds = 10.0;

const char* DirName(PipeDir dir) { return dir == PipeDir::C2V ? "C2V" : "V2C"; }

// The runtime's trace clock (pypto/runtime/trace.h): steady-clock nanoseconds.
int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The bytes of a slot's tile: its valid region, packed.
int64_t ValidBytes(const PipeTileShape& shape) {
  return static_cast<int64_t>(shape.rows) * shape.cols * shape.elem_bytes;
}

std::string MemberName(int member) {
  return member == 0 ? "the AIC" : "AIV lane " + std::to_string(member - 1);
}

std::string Seconds(double s) {
  std::ostringstream os;
  os.precision(2);
  os << std::fixed << s << " s";
  return os.str();
}

// The instructions of a ring's ends, for the hints.
const char* PopName(PipeDir dir) { return dir == PipeDir::C2V ? "TPOP_FROM_AIC" : "TPOP_FROM_AIV"; }
const char* FreeName(PipeDir dir) { return dir == PipeDir::C2V ? "TFREE_TO_AIC" : "TFREE_TO_AIV"; }
const char* InitName(bool aic) { return aic ? "AIC_INITIALIZE_PIPE" : "AIV_INITIALIZE_PIPE"; }

constexpr const char* kNoClusterTask =
    "a cross-core pipe op in a kernel that does not run as part of a cluster task; the AIC and AIV kernels of a "
    "mixed kernel must be submitted together (one cluster task)";

}  // namespace

double PipeTimeoutFromEnvironment() {
  const char* text = std::getenv("PYPTO_PIPE_TIMEOUT_S");
  if (text == nullptr || *text == '\0') return kDefaultPipeTimeoutSeconds;
  char* end = nullptr;
  double seconds = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(seconds > 0)) {
    pypto::ThrowValueError(std::string("PYPTO_PIPE_TIMEOUT_S='") + text +
                           "' is not a number of seconds > 0; unset it (default " +
                           Seconds(kDefaultPipeTimeoutSeconds) + ") or set it like PYPTO_PIPE_TIMEOUT_S=30");
  }
  return seconds;
}

SimPipe::SimPipe(double timeout_s) : timeout_s_(timeout_s) {}

void SimPipe::Begin(const std::string& kernel, uint32_t members) {
  std::lock_guard lock(mu_);
  kernel_ = kernel;
  for (int m = 0; m < kMembers; ++m) {
    members_[m] = Member{};
    members_[m].state = (members >> m) & 1u ? State::Running : State::Idle;
  }
  dirs_ = {};
  active_ = true;
  broken_ = false;
  broken_report_.clear();
}

void SimPipe::Finish(int member) {
  std::lock_guard lock(mu_);
  members_[member].state = State::Finished;
  // Once the block is over, a kernel that runs alone on these cores has no pipe.
  active_ = false;
  for (const Member& m : members_) active_ = active_ || m.state == State::Running || m.state == State::Waiting;
  cv_.notify_all();
}

bool SimPipe::Active(SimCore& core, const char* instruction) {
  if (!active_) Fail(core, instruction, kNoClusterTask);
  return active_;
}

int SimPipe::LaneCount() const {
  if (members_[2].state != State::Idle) return 2;
  return members_[1].state != State::Idle ? 1 : 0;
}

bool SimPipe::CanGo(const Member& m) const {
  const Direction& d = dirs_[static_cast<int>(m.dir)];
  const Ring& r = d.rings[m.lane];
  if (m.producer) return r.consumer_ready && r.pushed - r.freed < d.slot_num;
  return r.popped < r.pushed;
}

bool SimPipe::Stuck() const {
  for (const Member& m : members_) {
    if (m.state == State::Running || (m.state == State::Waiting && CanGo(m))) return false;
  }
  return true;
}

void SimPipe::Fail(SimCore& core, const char* instruction, const std::string& text) {
  core.RaiseDetail(FaultKind::Pipe, instruction, text.c_str());
}

std::string SimPipe::Describe(int member) const {
  const Member& m = members_[member];
  std::string who = MemberName(member);
  switch (m.state) {
    case State::Idle: return "";
    case State::Finished: return who + ": finished.";
    case State::Running: return who + ": running (busy outside the pipe).";
    case State::Waiting: break;
  }
  const Direction& d = dirs_[static_cast<int>(m.dir)];
  const Ring& r = d.rings[m.lane];
  const int producer = Producer(m.dir, m.lane);
  const int consumer = Consumer(m.dir, m.lane);
  std::ostringstream os;
  os << who << ": waits in " << m.instruction << " for " << (m.producer ? "a free slot" : "a tile") << " of ring "
     << DirName(m.dir) << " lane " << m.lane << " (pushed " << r.pushed << ", popped " << r.popped << ", freed "
     << r.freed << ", " << r.pushed - r.freed << " of " << d.slot_num << " slots in use): ";
  const std::string peer = MemberName(m.producer ? consumer : producer);
  const State peer_state = members_[m.producer ? consumer : producer].state;
  if (m.producer && !r.consumer_ready) {
    os << "the consumer (" << peer << ") has not initialized its end of " << DirName(m.dir) << " ("
       << InitName(consumer == 0) << " with " << (m.dir == PipeDir::C2V ? "DIR_C2V" : "DIR_V2C")
       << " in dir_mask), which frees the slots.";
  } else if (m.producer && r.freed < r.popped) {
    os << "the consumer (" << peer << ") popped " << r.popped << " tiles but freed " << r.freed << ": a "
       << PopName(m.dir) << " without its " << FreeName(m.dir) << " keeps its slot, and the ring fills up; free "
       << "every popped tile once it is used.";
  } else if (m.producer) {
    if (peer_state == State::Finished) {
      os << "the consumer (" << peer << ") finished after popping " << r.popped << " tiles, and this is push "
         << r.pushed + 1 << ": the push and pop counts differ.";
    } else {
      os << "the consumer (" << peer << ") waits elsewhere before popping: the producer runs more than the ring's "
         << d.slot_num << " slots ahead of a consumer that first waits on it; pop before that wait, or make the "
         << "ring deeper than the tiles pushed ahead (slot_num, at most " << kMaxSlots << " for one direction).";
    }
  } else if (peer_state == State::Finished) {
    os << "the producer (" << peer << ") finished after pushing " << r.pushed << " tiles, and this is pop "
       << r.popped + 1 << ": the push and pop counts differ.";
  } else {
    os << "the producer (" << peer << ") waits elsewhere before pushing; see its wait.";
  }
  return os.str();
}

std::string SimPipe::Report(int member, Cause cause) const {
  std::ostringstream os;
  switch (cause) {
    case Cause::Deadlock:
      os << "cross-core pipe deadlock in cluster task '" << kernel_
         << "': every core of the cluster is waiting on the pipe or has finished, so no wait can end.";
      break;
    case Cause::TimedOut:
      os << "cross-core pipe wait of " << MemberName(member) << " timed out after " << Seconds(timeout_s_)
         << " in cluster task '" << kernel_ << "' (PYPTO_PIPE_TIMEOUT_S; raise it if a peer is merely slow).";
      break;
    case Cause::Broken:
      os << "cross-core pipe of cluster task '" << kernel_ << "' is broken: an earlier wait of this block failed.";
      break;
  }
  for (int m = 0; m < kMembers; ++m) {
    std::string line = Describe(m);
    if (!line.empty()) os << " " << line;
  }
  return os.str();
}

bool SimPipe::Wait(std::unique_lock<std::mutex>& lock, SimCore& core, PipeDir dir, int lane, bool producer,
                   const char* instruction) {
  Member& me = members_[core.cluster_member];
  me.state = State::Waiting;
  me.instruction = instruction;
  me.dir = dir;
  me.lane = lane;
  me.producer = producer;
  // A traced run records how long the host waited (a clock read only when it does).
  const bool timed = core.perf != nullptr;
  me.wait_begin_ns = me.wait_end_ns = timed ? NowNs() : 0;
  if (CanGo(me) && !broken_) {
    me.state = State::Running;
    return true;
  }
  // A peer waiting now re-checks whether every core is stuck.
  cv_.notify_all();
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                             std::chrono::duration<double>(timeout_s_));
  Cause cause = Cause::Broken;
  while (!CanGo(me)) {
    if (broken_) break;
    if (Stuck()) {
      cause = Cause::Deadlock;
      break;
    }
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && !CanGo(me) && !broken_) {
      cause = Cause::TimedOut;
      break;
    }
  }
  if (timed) me.wait_end_ns = NowNs();
  if (!broken_ && CanGo(me)) {
    me.state = State::Running;
    return true;
  }
  if (!broken_) {
    // The cores waiting now fail with this one report, taken while the
    // pipe stands still; then each runs on, failing every pipe op.
    broken_ = true;
    broken_report_ = Report(core.cluster_member, cause);
    cv_.notify_all();
  }
  me.state = State::Running;
  Fail(core, instruction, broken_report_);
  return false;
}

bool SimPipe::Allowed(SimCore& core, PipeDir dir, int lane, bool producer, const char* instruction) {
  if (!Active(core, instruction)) return false;
  if (broken_) {
    Fail(core, instruction, Report(core.cluster_member, Cause::Broken));
    return false;
  }
  const int me = core.cluster_member;
  const int expected = producer ? Producer(dir, lane) : Consumer(dir, lane);
  if (lane < 0 || lane >= LaneCount() || me != expected) {
    Fail(core, instruction,
         std::string(instruction) + " on " + MemberName(me) + " in cluster task '" + kernel_ + "': only " +
             (lane >= 0 && lane < LaneCount() ? MemberName(expected) : std::string("an AIV lane of the task")) +
             " is the " + (producer ? "producer" : "consumer") + " of ring " + DirName(dir) +
             " of this lane; the AIC pushes with TPUSH_TO_AIV and pops with TPOP_FROM_AIV, an AIV lane pushes "
             "with TPUSH_TO_AIC and pops with TPOP_FROM_AIC");
    return false;
  }
  const Ring& r = dirs_[static_cast<int>(dir)].rings[lane];
  if (!(producer ? r.producer_ready : r.consumer_ready)) {
    Fail(core, instruction,
         std::string(instruction) + " on " + MemberName(me) + " in cluster task '" + kernel_ + "' before its " +
             InitName(me == 0) + " set up " + DirName(dir) + "; initialize the pipe with " +
             (dir == PipeDir::C2V ? "DIR_C2V" : "DIR_V2C") + " in dir_mask first");
    return false;
  }
  return true;
}

bool SimPipe::Init(SimCore& core, bool aic, int32_t dir_mask, int64_t slot_size, int32_t slot_num,
                   const char* instruction) {
  std::lock_guard lock(mu_);
  if (!Active(core, instruction)) return false;
  const int me = core.cluster_member;
  auto fail = [&](const std::string& text) {
    Fail(core, instruction, std::string(instruction) + " on " + MemberName(me) + " in cluster task '" +
                                     kernel_ + "': " + text);
    return false;
  };
  if (aic != (me == 0)) return fail(std::string("this core is not ") + (aic ? "the AIC" : "an AIV lane"));
  if (dir_mask < 1 || dir_mask > (DIR_C2V | DIR_V2C)) {
    return fail("dir_mask " + std::to_string(dir_mask) +
                " names no direction; use DIR_C2V (1), DIR_V2C (2) or both (3)");
  }
  const bool both = dir_mask == (DIR_C2V | DIR_V2C);
  const int32_t max_slots = both ? kMaxSlots / 2 : kMaxSlots;
  if (slot_num == 0) slot_num = max_slots;
  if (slot_num < 0 || slot_num > max_slots) {
    return fail("slot_num " + std::to_string(slot_num) + " is outside 1.." + std::to_string(max_slots) +
                ": the hardware has " + std::to_string(kMaxSlots) + " flags per direction and Vector-Cube pair" +
                (both ? ", shared by the two directions" : ""));
  }
  if (slot_size <= 0) return fail("slot_size " + std::to_string(slot_size) + " is not a positive number of bytes");
  // Flag work: the consumer's init frees every slot once it is done.
  const uint64_t init_done = core.perf != nullptr ? core.perf->IssueSync(0, Pipe::MTE2, PerfModel::kPipeSyncCycles) : 0;
  for (PipeDir dir : {PipeDir::C2V, PipeDir::V2C}) {
    if (!(dir_mask & (dir == PipeDir::C2V ? DIR_C2V : DIR_V2C))) continue;
    Direction& d = dirs_[static_cast<int>(dir)];
    if (d.slot_size == 0) {
      d.slot_size = slot_size;
      d.slot_num = slot_num;
      for (Ring& r : d.rings) r.bytes.assign(static_cast<size_t>(slot_size) * static_cast<size_t>(slot_num), 0);
    } else if (d.slot_size != slot_size || d.slot_num != slot_num) {
      return fail(std::string("the ends of ") + DirName(dir) + " disagree: the other end set " +
                  std::to_string(d.slot_num) + " slots of " + std::to_string(d.slot_size) + " bytes, this one " +
                  std::to_string(slot_num) + " of " + std::to_string(slot_size) + "; give both inits the same "
                  "dir_mask, slot_size and slot_num");
    }
    const bool producer = (dir == PipeDir::C2V) == aic;
    for (int lane = 0; lane < kLanes; ++lane) {
      if ((producer ? Producer(dir, lane) : Consumer(dir, lane)) != me) continue;
      (producer ? d.rings[lane].producer_ready : d.rings[lane].consumer_ready) = true;
      if (!producer) d.rings[lane].consumer_init_at = init_done;
    }
  }
  cv_.notify_all();
  return true;
}

int32_t SimPipe::Lanes(SimCore& core, const char* instruction) {
  std::lock_guard lock(mu_);
  if (!Active(core, instruction)) return 0;
  const int lanes = LaneCount();
  if (lanes == 0) {
    Fail(core, instruction,
         std::string(instruction) + " in cluster task '" + kernel_ + "', which runs no AIV kernel to exchange with");
  }
  return lanes;
}

unsigned char* SimPipe::Reserve(SimCore& core, PipeDir dir, int lane, int64_t bytes, const char* instruction) {
  std::unique_lock lock(mu_);
  if (!Allowed(core, dir, lane, true, instruction)) return nullptr;
  Direction& d = dirs_[static_cast<int>(dir)];
  if (bytes > d.slot_size) {
    Fail(core, instruction,
         std::string(instruction) + " in cluster task '" + kernel_ + "': a tile of " + std::to_string(bytes) +
             " bytes does not fit a slot of " + std::to_string(d.slot_size) + " bytes of " + DirName(dir) +
             "; make slot_size (the init's) the size of the largest tile that crosses");
    return nullptr;
  }
  if (!Wait(lock, core, dir, lane, true, instruction)) return nullptr;
  Ring& r = d.rings[lane];
  return r.bytes.data() + static_cast<size_t>(r.pushed % d.slot_num) * static_cast<size_t>(d.slot_size);
}

void SimPipe::Record(int member, const char* instruction, PipeDir dir, int lane, bool producer,
                     const PerfModel::Issued& issued, int64_t bytes) {
  Member& m = members_[member];
  pypto::runtime::PipeCounters& c = m.counters;
  (producer ? c.tiles_pushed : c.tiles_popped) += 1;
  (producer ? c.bytes_pushed : c.bytes_popped) += bytes;
  const int64_t host = m.wait_end_ns - m.wait_begin_ns;
  const int64_t device = static_cast<int64_t>(issued.start - issued.own);
  c.wait_ns += host;
  c.wait_cycles += device;
  if (host <= 0 && device <= 0) return;
  pypto::runtime::PipeWait w;
  w.instruction = instruction != nullptr ? instruction : "";
  w.dir = static_cast<int32_t>(dir);
  w.lane = lane;
  w.producer = producer;
  w.start_ns = m.wait_begin_ns;
  w.end_ns = m.wait_end_ns;
  w.device_start_cycles = static_cast<int64_t>(issued.own);
  w.device_end_cycles = static_cast<int64_t>(issued.start);
  m.waits.push_back(std::move(w));
}

void SimPipe::Collect(int member, pypto::runtime::CoreCounters& out) {
  std::lock_guard lock(mu_);
  Member& m = members_[member];
  out.pipe = m.counters;
  out.pipe_waits = std::move(m.waits);
  m.counters = {};
  m.waits.clear();
}

void SimPipe::Publish(SimCore& core, PipeDir dir, int lane, const PipeTileShape& shape, const PipeCost* cost) {
  std::lock_guard lock(mu_);
  Direction& d = dirs_[static_cast<int>(dir)];
  Ring& r = d.rings[lane];
  const size_t slot = static_cast<size_t>(r.pushed % d.slot_num);
  r.shapes[slot] = shape;
  r.pushed_at[slot] = 0;
  if (PerfModel* model = core.perf; model != nullptr && cost != nullptr) {
    // The first slot_num tiles go into the slots the consumer's init freed,
    // later ones into the slot of the tile slot_num before, once freed.
    const uint64_t slot_free = r.pushed < d.slot_num ? r.consumer_init_at : r.freed_at[slot];
    const int64_t bytes = ValidBytes(shape);
    const Pipe pipe = static_cast<Pipe>(cost->pipe);
    const Operand tile{cost->space, cost->addr, cost->footprint, static_cast<uint64_t>(bytes)};
    const Operand ring{kGlobalMemory, 0, 0, static_cast<uint64_t>(bytes)};
    const PerfModel::Issued issued =
        model->IssueAfter(slot_free, pipe, model->WorkCycles(pipe, static_cast<double>(bytes)), &tile, 1, &ring, 1);
    r.pushed_at[slot] = issued.ready;
    const Member& me = members_[core.cluster_member];
    Record(core.cluster_member, me.instruction, dir, lane, true, issued, bytes);
  }
  ++r.pushed;
  cv_.notify_all();
}

const unsigned char* SimPipe::Take(SimCore& core, PipeDir dir, int lane, PipeTileShape& shape, const PipeCost* cost,
                                   const char* instruction) {
  std::unique_lock lock(mu_);
  if (!Allowed(core, dir, lane, false, instruction)) return nullptr;
  if (!Wait(lock, core, dir, lane, false, instruction)) return nullptr;
  Direction& d = dirs_[static_cast<int>(dir)];
  Ring& r = d.rings[lane];
  const size_t slot = static_cast<size_t>(r.popped % d.slot_num);
  shape = r.shapes[slot];
  r.popped_at[slot] = 0;
  if (PerfModel* model = core.perf; model != nullptr && cost != nullptr) {
    // A load of the tile out of the ring, once the producer's push is done.
    const int64_t bytes = ValidBytes(shape);
    const Pipe pipe = static_cast<Pipe>(cost->pipe);
    const Operand ring{kGlobalMemory, 0, 0, static_cast<uint64_t>(bytes)};
    const Operand tile{cost->space, cost->addr, cost->footprint, static_cast<uint64_t>(bytes)};
    const PerfModel::Issued issued = model->IssueAfter(
        r.pushed_at[slot], pipe, model->WorkCycles(pipe, static_cast<double>(bytes)), &ring, 1, &tile, 1);
    r.popped_at[slot] = issued.ready;
    Record(core.cluster_member, instruction, dir, lane, false, issued, bytes);
  }
  ++r.popped;
  // The slot stays the consumer's until its free, so the caller reads it unlocked.
  return r.bytes.data() + slot * static_cast<size_t>(d.slot_size);
}

bool SimPipe::Release(SimCore& core, PipeDir dir, int lane, const char* instruction) {
  std::lock_guard lock(mu_);
  if (!Allowed(core, dir, lane, false, instruction)) return false;
  Ring& r = dirs_[static_cast<int>(dir)].rings[lane];
  if (r.freed >= r.popped) {
    Fail(core, instruction,
         std::string(instruction) + " on " + MemberName(core.cluster_member) + " in cluster task '" + kernel_ +
             "' frees a slot of ring " + DirName(dir) + " lane " + std::to_string(lane) + " it never popped (popped " +
             std::to_string(r.popped) + ", freed " + std::to_string(r.freed) + "); free once per " + PopName(dir));
    return false;
  }
  // Flag work once everything the core issued before it is done: the popped
  // tile's last use is among that (on A5 the popped tile is the slot itself).
  const size_t slot = static_cast<size_t>(r.freed % dirs_[static_cast<int>(dir)].slot_num);
  r.freed_at[slot] = 0;
  if (PerfModel* model = core.perf; model != nullptr) {
    const uint64_t after = r.popped_at[slot] > model->done ? r.popped_at[slot] : model->done;
    r.freed_at[slot] = model->IssueSync(after, Pipe::MTE2, PerfModel::kPipeSyncCycles);
    ++members_[core.cluster_member].counters.frees;
  }
  ++r.freed;
  cv_.notify_all();
  return true;
}

}  // namespace pto

namespace {

// The pipe of `core`'s cluster, or null after a fault saying there is none.
pto::SimPipe* PipeOf(pto::SimCore* core, const char* instruction) {
  if (core == nullptr) return nullptr;
  if (core->pipe == nullptr) {
    core->RaiseDetail(pto::FaultKind::Pipe, instruction, pto::kNoClusterTask);
  }
  return core->pipe;
}

}  // namespace

extern "C" {

int32_t pypto_sim_pipe_init(pto::SimCore* core, int32_t aic, int32_t dir_mask, int64_t slot_size, int32_t slot_num,
                            const char* instruction) {
  pto::SimPipe* pipe = PipeOf(core, instruction);
  return pipe != nullptr && pipe->Init(*core, aic != 0, dir_mask, slot_size, slot_num, instruction);
}

int32_t pypto_sim_pipe_lanes(pto::SimCore* core, const char* instruction) {
  pto::SimPipe* pipe = PipeOf(core, instruction);
  return pipe != nullptr ? pipe->Lanes(*core, instruction) : 0;
}

unsigned char* pypto_sim_pipe_reserve(pto::SimCore* core, int32_t dir, int32_t lane, int64_t bytes,
                                      const char* instruction) {
  pto::SimPipe* pipe = PipeOf(core, instruction);
  if (pipe == nullptr) return nullptr;
  return pipe->Reserve(*core, static_cast<pto::PipeDir>(dir), lane, bytes, instruction);
}

void pypto_sim_pipe_publish(pto::SimCore* core, int32_t dir, int32_t lane, const pto::PipeTileShape* shape) {
  pypto_sim_pipe_publish_counted(core, dir, lane, shape, nullptr);
}

void pypto_sim_pipe_publish_counted(pto::SimCore* core, int32_t dir, int32_t lane, const pto::PipeTileShape* shape,
                                    const pto::PipeCost* cost) {
  core->pipe->Publish(*core, static_cast<pto::PipeDir>(dir), lane, *shape, cost);
}

const unsigned char* pypto_sim_pipe_take(pto::SimCore* core, int32_t dir, int32_t lane, pto::PipeTileShape* shape,
                                         const char* instruction) {
  return pypto_sim_pipe_take_counted(core, dir, lane, shape, nullptr, instruction);
}

const unsigned char* pypto_sim_pipe_take_counted(pto::SimCore* core, int32_t dir, int32_t lane,
                                                 pto::PipeTileShape* shape, const pto::PipeCost* cost,
                                                 const char* instruction) {
  pto::SimPipe* pipe = PipeOf(core, instruction);
  if (pipe == nullptr) return nullptr;
  return pipe->Take(*core, static_cast<pto::PipeDir>(dir), lane, *shape, cost, instruction);
}

int32_t pypto_sim_pipe_release(pto::SimCore* core, int32_t dir, int32_t lane, const char* instruction) {
  pto::SimPipe* pipe = PipeOf(core, instruction);
  return pipe != nullptr && pipe->Release(*core, static_cast<pto::PipeDir>(dir), lane, instruction);
}

}  // extern "C"
