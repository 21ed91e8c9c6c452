// What one kernel statement does to the pipes: the pipe its instruction runs
// on and the memory it reads and writes, from the op registry's pipe and
// effect declarations and the tiles' planned buffers.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "pypto/ir/ir.h"
#include "pypto/ops/registry.h"

namespace pypto::passes::pipe_sync {

// The pipes by their registry codes (ops::PipeType); kALL is no pipe of its own.
inline constexpr int kPipes = 8;
inline constexpr int kVectorPipe = static_cast<int>(ops::PipeType::kV);

// Bytes an instruction touches. On chip: [lo, hi) of a memory space. In
// global memory: all of one kernel argument's tensor, since windows with
// offsets the compiler cannot compare are assumed to overlap.
struct Range {
  bool global = false;
  int space = 0;  // ir::MemorySpace, on chip
  int64_t lo = 0;
  int64_t hi = 0;
  const ir::Var* tensor = nullptr;  // global: the root tensor
  bool write = false;
};

bool Overlap(const Range& a, const Range& b);
// Whether every byte of `inner` is a byte of `outer`.
bool Covers(const Range& outer, const Range& inner);

// The tensor a tensor value is a name of: a kernel parameter, through stores
// (which return their destination), loop-carried tensors and branch results.
class TensorRoots {
 public:
  explicit TensorRoots(const ir::Function& kernel);
  const ir::Var* RootOf(const ir::ExprPtr& tensor) const;

 private:
  std::map<const ir::Var*, const ir::Var*> parent_;
};

// One statement's instruction.
struct Instruction {
  int pipe = 0;
  std::vector<Range> ranges;
};

enum class StatementKind {
  kNone,          // no instruction that touches memory (scalar code, views, allocations)
  kInstruction,   // one instruction on one pipe
  kUnknownPipe,   // an op that declares no pipe: ordered against everything
  kBarrierAll,    // system.bar_all
  kBarrierV,      // system.bar_v
  kBarrierOther,  // system.bar_m: the cube finishes its instructions in order anyway
  kUserEvent,     // system.sync_src / sync_dst written by the user
};

struct StatementAccess {
  StatementKind kind = StatementKind::kNone;
  Instruction instruction;
};

// The op call a statement evaluates or binds, and what it does to the pipes.
StatementAccess AccessOf(const ir::StmtPtr& stmt, const TensorRoots& roots);

}  // namespace pypto::passes::pipe_sync
