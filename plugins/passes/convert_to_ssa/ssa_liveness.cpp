#include "ssa_liveness.h"

#include <utility>

#include "pypto/ir/visitor.h"

namespace pypto::passes {

using ir::Ref;
using ir::StmtPtr;

namespace {

class UseCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  explicit UseCollector(VarSet& uses) : uses_(uses) {}

  void Visit_(const Ref<ir::Var>& var) override { uses_.insert(var.get()); }
  void Visit_(const Ref<ir::IterArg>& var) override { uses_.insert(var.get()); }
  void Visit_(const Ref<ir::MemRef>&) override {}

 private:
  VarSet& uses_;
};

class DefinitionCollector : public ir::IRVisitor {
 public:
  std::vector<ir::VarPtr> defs;

  void VisitVarDef(const ir::VarPtr& var) override {
    if (var && !ir::As<ir::MemRef>(var)) defs.push_back(var);
    IRVisitor::VisitVarDef(var);
  }
};

void AddAttrUses(const ir::Attrs& attrs, VarSet& uses) {
  for (const auto& [key, value] : attrs) {
    if (const auto* expr = std::get_if<ir::ExprPtr>(&value)) AddUses(*expr, uses);
    if (const auto* exprs = std::get_if<std::vector<ir::ExprPtr>>(&value)) {
      for (const auto& e : *exprs) AddUses(e, uses);
    }
  }
}

void Kill(VarSet& live, const std::vector<ir::VarPtr>& defs) {
  for (const auto& def : defs) live.erase(def.get());
}

template <class VarT>
std::vector<ir::VarPtr> AsVars(const std::vector<Ref<VarT>>& vars) {
  return std::vector<ir::VarPtr>(vars.begin(), vars.end());
}

}  // namespace

void AddUses(const ir::ExprPtr& expr, VarSet& uses) {
  if (!expr) return;
  UseCollector collector(uses);
  collector.VisitExpr(expr);
}

std::vector<ir::VarPtr> DefinitionsIn(const StmtPtr& stmt) {
  DefinitionCollector collector;
  if (stmt) collector.VisitStmt(stmt);
  return std::move(collector.defs);
}

SsaLiveness::SsaLiveness(const ir::Function& function) {
  if (function.body) LiveBefore(function.body, {});
}

const VarSet& SsaLiveness::LiveAfter(const ir::Stmt* stmt) const {
  static const VarSet kNone;
  auto it = live_after_.find(stmt);
  return it == live_after_.end() ? kNone : it->second;
}

const VarSet& SsaLiveness::LiveAtHead(const ir::Stmt* loop) const {
  static const VarSet kNone;
  auto it = live_at_head_.find(loop);
  return it == live_at_head_.end() ? kNone : it->second;
}

VarSet SsaLiveness::LiveBefore(const StmtPtr& stmt, VarSet live) {
  if (!stmt) return live;
  if (auto seq = ir::As<ir::SeqStmts>(stmt)) {
    for (auto it = seq->stmts.rbegin(); it != seq->stmts.rend(); ++it) live = LiveBefore(*it, std::move(live));
    return live;
  }
  if (auto assign = ir::As<ir::AssignStmt>(stmt)) {
    if (assign->var) live.erase(assign->var.get());
    AddUses(assign->value, live);
    return live;
  }
  if (auto branch = ir::As<ir::IfStmt>(stmt)) {
    live_after_[stmt.get()].insert(live.begin(), live.end());
    Kill(live, branch->return_vars);
    VarSet before = LiveBefore(branch->then_body, live);
    VarSet before_else = branch->else_body ? LiveBefore(branch->else_body, live) : live;
    before.insert(before_else.begin(), before_else.end());
    AddUses(branch->condition, before);
    return before;
  }
  if (auto loop = ir::As<ir::ForStmt>(stmt)) {
    std::vector<ir::VarPtr> loop_defs = AsVars(loop->iter_args);
    loop_defs.push_back(loop->loop_var);
    VarSet before = LiveBeforeLoop(*loop, loop->body, {}, loop_defs, std::move(live));
    for (const auto& bound : {loop->start, loop->stop, loop->step}) AddUses(bound, before);
    for (const auto& arg : loop->iter_args) AddUses(arg->init_value, before);
    AddAttrUses(loop->attrs, before);
    return before;
  }
  if (auto loop = ir::As<ir::WhileStmt>(stmt)) {
    VarSet before = LiveBeforeLoop(*loop, loop->body, {loop->condition}, AsVars(loop->iter_args), std::move(live));
    for (const auto& arg : loop->iter_args) AddUses(arg->init_value, before);
    return before;
  }
  if (auto scope = ir::As<ir::ScopeStmt>(stmt)) {
    if (scope->task_id) live.erase(scope->task_id.get());
    live = LiveBefore(scope->body, std::move(live));
    AddUses(scope->core_num, live);
    AddAttrUses(scope->attrs, live);
    return live;
  }
  if (ir::As<ir::BreakStmt>(stmt)) return loops_.empty() ? VarSet{} : loops_.back().after;
  if (ir::As<ir::ContinueStmt>(stmt)) return loops_.empty() ? VarSet{} : loops_.back().head;
  // Eval, yield, return: reads only.
  VarSet uses;
  UseCollector collector(uses);
  collector.VisitStmt(stmt);
  live.insert(uses.begin(), uses.end());
  return live;
}

// The head of a loop is reached from before the loop and from the end of the
// body; iterate until what is live there stops growing.
VarSet SsaLiveness::LiveBeforeLoop(const ir::Stmt& loop, const StmtPtr& body,
                                   const std::vector<ir::ExprPtr>& head_uses, const std::vector<ir::VarPtr>& loop_defs,
                                   VarSet live_after) {
  live_after_[&loop].insert(live_after.begin(), live_after.end());
  VarSet after_loop = live_after;
  if (const auto* for_loop = ir::As<ir::ForStmt>(&loop)) Kill(after_loop, for_loop->return_vars);
  if (const auto* while_loop = ir::As<ir::WhileStmt>(&loop)) Kill(after_loop, while_loop->return_vars);
  VarSet head = after_loop;
  for (const auto& e : head_uses) AddUses(e, head);
  while (true) {
    loops_.push_back({after_loop, head});
    VarSet next = LiveBefore(body, head);
    loops_.pop_back();
    for (const auto& e : head_uses) AddUses(e, next);
    next.insert(after_loop.begin(), after_loop.end());
    if (next.size() == head.size()) break;
    head = std::move(next);
  }
  live_at_head_[&loop].insert(head.begin(), head.end());
  VarSet before = head;
  Kill(before, loop_defs);
  return before;
}

}  // namespace pypto::passes
