// The pipe-hazard checker: what the chip's asynchronous pipes would do to a
// kernel that the simulator runs in program order.
//
// A core's pipes (S, V, MTE1, MTE2, MTE3, M, FIX) each run their own
// instructions in order, but an instruction on one pipe may overtake an
// earlier one on another unless an event orders them: set_flag(src, dst, e)
// on src once src's earlier instructions are done, wait_flag(src, dst, e)
// holding dst's later ones until then. The vector pipe also overlaps its own
// instructions, so a vector instruction that depends on an earlier one needs
// pipe_barrier(PIPE_V) between them. pipe_barrier(PIPE_ALL) orders
// everything before it before everything after it.
//
// The checker keeps, per pipe, how far it knows every other pipe's
// instructions to be done (a vector clock that waits and barriers advance),
// and per memory space the recent accesses with their pipe and position. An
// access that conflicts with an earlier one (overlapping bytes, at least one
// write) that its pipe does not know to be done is a PipeHazard fault naming
// both instructions, their lines and the event that would order them. So is
// a wait_flag with no set_flag before it (the pipe would wait for ever), a
// set_flag of an event still set, and an event still set when the kernel
// returns (it would leak into the next kernel on the core).
//
// An earlier access stops being tracked once a later access on its pipe
// covers its bytes, or a later write ordered after it does; past
// kMaxRecords accesses of one space the oldest is dropped, so a conflict
// further back than that is not seen.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/isa/hazard.h"
#include "pypto/isa/perf_model.h"
#include "pypto/isa/sim_core.h"

namespace pypto::backend {

class PipeHazardChecker final : public pto::PipeHazards {
 public:
  static constexpr int kPipes = 8;   // the ISA's pipe numbers, PIPE_ALL (6) included but never a pipe of its own
  static constexpr int kEvents = 8;  // EVENT_ID0 .. EVENT_ID7 per pipe pair
  static constexpr size_t kMaxRecords = 4096;

  void Access(pto::SimCore& core, const char* instruction, int32_t pipe, const pto::MemAccess* accesses,
              int32_t count) override;
  void Sync(pto::SimCore& core, pto::HazardSync kind, int32_t src, int32_t dst, int32_t event) override;
  void Finish(pto::SimCore& core) override;
  void Reset();

 private:
  struct Record {
    pto::MemAccess access;
    int pipe = 0;
    uint64_t seq = 0;
    const char* instruction = "";
    uint32_t line = 0;
  };
  struct Event {
    bool set = false;
    uint64_t known[kPipes] = {};
    uint32_t line = 0;
  };

  bool Ordered(int pipe, const Record& earlier) const;
  void Check(pto::SimCore& core, const char* instruction, int pipe, const pto::MemAccess& access);
  void Remember(const Record& record);

  uint64_t issued_[kPipes] = {};
  // known_[p][q]: p's next instruction starts after q's first known_[p][q] instructions are done.
  uint64_t known_[kPipes][kPipes] = {};
  Event events_[kPipes][kPipes][kEvents];
  std::vector<Record> records_[pto::kNumCountedSpaces];
};

// "PIPE_MTE2", ... for pipe numbers; "pipe <n>" for others.
std::string PipeName(int pipe);

}  // namespace pypto::backend
