// Backward liveness of the variables of one function, as written (before
// renaming): which variables are read later on some path. ConvertToSSA uses
// it to give if statements and loops only the return_vars and iter_args
// whose values are read afterwards.
#pragma once

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::passes {

using VarSet = std::unordered_set<const ir::Var*>;

class SsaLiveness {
 public:
  explicit SsaLiveness(const ir::Function& function);

  // Variables read after `stmt` (an if or a loop) before being assigned again.
  const VarSet& LiveAfter(const ir::Stmt* stmt) const;
  // Variables read at the head of `loop` before being assigned again: by the
  // next iteration (the body, a while condition) or after the loop.
  const VarSet& LiveAtHead(const ir::Stmt* loop) const;

 private:
  struct LoopExits {
    VarSet after;  // where break goes
    VarSet head;   // where continue goes
  };

  VarSet LiveBefore(const ir::StmtPtr& stmt, VarSet live);
  VarSet LiveBeforeLoop(const ir::Stmt& loop, const ir::StmtPtr& body, const std::vector<ir::ExprPtr>& head_uses,
                        const std::vector<ir::VarPtr>& loop_defs, VarSet live_after);

  std::unordered_map<const ir::Stmt*, VarSet> live_after_;
  std::unordered_map<const ir::Stmt*, VarSet> live_at_head_;
  std::vector<LoopExits> loops_;
};

// The variables read by `expr` (MemRefs name storage and are not reads).
void AddUses(const ir::ExprPtr& expr, VarSet& uses);
// Every variable the statement binds, at any depth (assign targets, loop
// vars, iter_args, return vars, scope task ids), in the order they appear.
std::vector<ir::VarPtr> DefinitionsIn(const ir::StmtPtr& stmt);

}  // namespace pypto::passes
