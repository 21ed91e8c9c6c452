#include "pypto/backend/pipe_hazards.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace pypto::backend {

std::string PipeName(int pipe) {
  static const char* const kNames[PipeHazardChecker::kPipes] = {"PIPE_S",    "PIPE_V", "PIPE_MTE1", "PIPE_MTE2",
                                                               "PIPE_MTE3", "PIPE_M", "PIPE_ALL",  "PIPE_FIX"};
  if (pipe >= 0 && pipe < PipeHazardChecker::kPipes) return kNames[pipe];
  return "pipe " + std::to_string(pipe);
}

namespace {

using pto::FaultKind;
using pto::HazardSync;
using pto::kGlobalMemory;
using pto::kHazardPipeAll;
using pto::kHazardPipeV;
using pto::MemAccess;
using pto::SimCore;

// The vector pipe overlaps its own instructions; every other pipe finishes them in order.
bool InOrder(int pipe) { return pipe != kHazardPipeV; }

bool IsPipe(int pipe) { return pipe >= 0 && pipe < PipeHazardChecker::kPipes && pipe != kHazardPipeAll; }

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string EventName(int event) { return "EVENT_ID" + std::to_string(event); }

// One past the last byte of the access's last row.
uint64_t End(const MemAccess& a) { return a.base + (a.rows - 1) * a.row_stride + a.width; }

bool SingleRun(const MemAccess& a) { return a.rows <= 1 || a.row_stride == 0; }

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Whether the run [x, x + w) meets any row of `r`.
bool RunMeets(uint64_t x, uint64_t w, const MemAccess& r) {
  if (SingleRun(r)) return x < r.base + r.width && r.base < x + w;
  // Row j of r is [base + j * s, base + j * s + width): it meets the run when
  // x - width < base + j * s < x + w.
  const auto s = static_cast<int64_t>(r.row_stride);
  const int64_t below = static_cast<int64_t>(x) - static_cast<int64_t>(r.width) - static_cast<int64_t>(r.base);
  const int64_t above = static_cast<int64_t>(x + w) - static_cast<int64_t>(r.base);
  const int64_t first = std::max<int64_t>(0, FloorDiv(below, s) + 1);
  const int64_t last = std::min<int64_t>(static_cast<int64_t>(r.rows) - 1, -FloorDiv(-above, s) - 1);
  return first <= last;
}

bool Overlap(const MemAccess& a, const MemAccess& b) {
  if (a.width == 0 || b.width == 0 || a.base >= End(b) || b.base >= End(a)) return false;
  const MemAccess& fewer = a.rows <= b.rows ? a : b;
  const MemAccess& other = a.rows <= b.rows ? b : a;
  const uint64_t rows = SingleRun(fewer) ? 1 : fewer.rows;
  for (uint64_t i = 0; i < rows; ++i) {
    if (RunMeets(fewer.base + i * fewer.row_stride, fewer.width, other)) return true;
  }
  return false;
}

// Whether every byte of `inner` is a byte of `outer`.
bool Covers(const MemAccess& outer, const MemAccess& inner) {
  if (SingleRun(outer)) return outer.base <= inner.base && End(inner) <= outer.base + outer.width;
  return outer.base == inner.base && outer.rows == inner.rows && outer.row_stride == inner.row_stride &&
         outer.width == inner.width;
}

std::string Bytes(const MemAccess& a) {
  if (a.space == kGlobalMemory) {
    if (SingleRun(a)) return "global memory [" + Hex(a.base) + ", " + Hex(a.base + a.width) + ")";
    return "global memory (" + std::to_string(a.rows) + " rows of " + std::to_string(a.width) + " bytes from " +
           Hex(a.base) + ")";
  }
  return std::string(pto::TileTypeName(static_cast<pto::TileType>(a.space))) + " bytes [" + Hex(a.base) + ", " +
         Hex(a.base + a.width) + ")";
}

std::string At(const char* instruction, uint32_t line, int pipe) {
  return std::string(instruction) + " (line " + std::to_string(line) + ", " + PipeName(pipe) + ")";
}

void Fail(SimCore& core, const char* instruction, const std::string& message) {
  core.RaiseDetail(FaultKind::PipeHazard, instruction, message.c_str());
}

}  // namespace

bool PipeHazardChecker::Ordered(int pipe, const Record& earlier) const {
  if (earlier.pipe == pipe && InOrder(pipe)) return true;
  return known_[pipe][earlier.pipe] >= earlier.seq;
}


void PipeHazardChecker::Check(SimCore& core, const char* instruction, int pipe, const MemAccess& access) {
  if (access.width == 0 || access.space < 0 || access.space >= pto::kNumCountedSpaces) return;
  // The latest conflicting access is the one to report: it is the one the fix orders first.
  const std::vector<Record>& list = records_[access.space];
  for (auto it = list.rbegin(); it != list.rend(); ++it) {
    const Record& r = *it;
    if (!access.write && !r.access.write) continue;
    if (Ordered(pipe, r) || !Overlap(access, r.access)) continue;
    const char* verb = access.write ? "writes" : "reads";
    const char* earlier_verb = r.access.write ? "wrote" : "read";
    std::string risk, fix;
    if (r.pipe == pipe) {
      risk = "the vector pipe overlaps its own instructions, so it may start the second before the first is done";
      fix = "put pipe_barrier(" + PipeName(pipe) + ") between them";
    } else {
      std::string pair = PipeName(r.pipe) + ", " + PipeName(pipe) + ", EVENT_IDn";
      risk = PipeName(pipe) + " may run it before " + PipeName(r.pipe) + " is done";
      fix = "put set_flag(" + pair + ") after the " + r.instruction + " and wait_flag(" + pair + ") before the " +
            instruction;
    }
    Fail(core, instruction,
         At(instruction, core.line, pipe) + " " + verb + " " + Bytes(access) + " that " +
             At(r.instruction, r.line, r.pipe) + " " + earlier_verb + " before it, and no event orders the two: on "
             "the chip " + risk + ". To order them, " + fix + " (the InsertPipeSync pass does this for generated "
             "kernels)");
    return;
  }
}

void PipeHazardChecker::Remember(const Record& record) {
  std::vector<Record>& list = records_[record.access.space];
  // An access that a later one on its pipe covers, or that a later write ordered after it covers, adds nothing
  // the later one does not: whatever is ordered after the later one is ordered after it.
  auto superseded = [&](const Record& r) {
    if (!Covers(record.access, r.access)) return false;
    if (r.pipe == record.pipe && (record.access.write || !r.access.write)) return true;
    return record.access.write && Ordered(record.pipe, r);
  };
  list.erase(std::remove_if(list.begin(), list.end(), superseded), list.end());
  if (list.size() >= kMaxRecords) list.erase(list.begin(), list.begin() + kMaxRecords / 4);
  list.push_back(record);
}

void PipeHazardChecker::Access(SimCore& core, const char* instruction, int32_t pipe, const MemAccess* accesses,
                               int32_t count) {
  if (core.faulted() || !IsPipe(pipe)) return;
  for (int i = 0; i < count && !core.faulted(); ++i) Check(core, instruction, pipe, accesses[i]);
  const uint64_t seq = ++issued_[pipe];
  for (int i = 0; i < count; ++i) {
    if (accesses[i].width == 0 || accesses[i].space < 0 || accesses[i].space >= pto::kNumCountedSpaces) continue;
    Remember(Record{accesses[i], pipe, seq, instruction, core.line});
  }
}

void PipeHazardChecker::Sync(SimCore& core, HazardSync kind, int32_t src, int32_t dst, int32_t event) {
  if (core.faulted()) return;
  if (kind == HazardSync::Barrier) {
    if (src == kHazardPipeAll) {
      for (auto& row : known_) std::copy(std::begin(issued_), std::end(issued_), std::begin(row));
      return;
    }
    if (!IsPipe(src)) {
      Fail(core, "pipe_barrier", "pipe_barrier(" + PipeName(src) + ") names no pipe; use PIPE_S .. PIPE_FIX or "
                                 "PIPE_ALL");
      return;
    }
    known_[src][src] = issued_[src];
    return;
  }
  const char* name = kind == HazardSync::SetFlag ? "set_flag" : "wait_flag";
  const std::string call = std::string(name) + "(" + PipeName(src) + ", " + PipeName(dst) + ", " +
                           (event >= 0 && event < kEvents ? EventName(event) : std::to_string(event)) + ")";
  if (!IsPipe(src) || !IsPipe(dst)) {
    Fail(core, name, call + " names no pipe an event can join; an event goes from one of PIPE_S .. PIPE_FIX to "
                            "another (PIPE_ALL is for pipe_barrier)");
    return;
  }
  if (event < 0 || event >= kEvents) {
    Fail(core, name, call + ": the event is outside EVENT_ID0 .. EVENT_ID7, the 8 events of each pipe pair");
    return;
  }
  Event& e = events_[src][dst][event];
  if (kind == HazardSync::SetFlag) {
    if (e.set) {
      Fail(core, name, call + " while the event is still set by the set_flag at line " + std::to_string(e.line) +
                           " (no wait_flag took it): on the chip the second signal is lost and a later wait_flag "
                           "passes too early; wait for the event before setting it again, or use another EVENT_ID");
      return;
    }
    e.set = true;
    std::copy(std::begin(known_[src]), std::end(known_[src]), std::begin(e.known));
    e.known[src] = issued_[src];
    e.line = core.line;
    return;
  }
  if (!e.set) {
    Fail(core, name, call + " with no set_flag before it: on the chip " + PipeName(dst) +
                         " would wait for ever; put set_flag(" + PipeName(src) + ", " + PipeName(dst) + ", " +
                         EventName(event) + ") after the " + PipeName(src) + " instruction it waits for");
    return;
  }
  for (int q = 0; q < kPipes; ++q) known_[dst][q] = std::max(known_[dst][q], e.known[q]);
  e.set = false;
}

void PipeHazardChecker::Finish(SimCore& core) {
  for (int src = 0; src < kPipes && !core.faulted(); ++src) {
    for (int dst = 0; dst < kPipes && !core.faulted(); ++dst) {
      for (int event = 0; event < kEvents; ++event) {
        const Event& e = events_[src][dst][event];
        if (!e.set) continue;
        core.line = e.line;
        std::string call = "set_flag(" + PipeName(src) + ", " + PipeName(dst) + ", " + EventName(event) + ")";
        Fail(core, "set_flag", call + " is never waited for: the event stays set into the next kernel on this core, "
                               "whose first wait_flag of it would pass at once; put wait_flag(" + PipeName(src) +
                               ", " + PipeName(dst) + ", " + EventName(event) + ") before the kernel returns");
        break;
      }
    }
  }
  Reset();
}

void PipeHazardChecker::Reset() {
  std::fill(std::begin(issued_), std::end(issued_), 0);
  for (auto& row : known_) std::fill(std::begin(row), std::end(row), 0);
  for (auto& by_src : events_) {
    for (auto& by_dst : by_src) {
      for (Event& e : by_dst) e = Event{};
    }
  }
  for (auto& list : records_) list.clear();
}

}  // namespace pypto::backend
