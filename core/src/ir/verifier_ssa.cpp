// SSAVerify and UseAfterDef: one definition per variable, every use inside
// the scope of its definition, and loops and ifs that carry their values out
// through matching yields.
#include <set>
#include <unordered_set>

#include "pypto/support/strings.h"
#include "verifier_internal.h"

namespace pypto::ir::verifier {
namespace {

constexpr const char* kSSA = "SSAVerify";
constexpr const char* kUseAfterDef = "UseAfterDef";

std::string Describe(const Stmt& stmt) {
  return std::string("the ") + stmt.type_name() + " at " + stmt.span.ToString();
}

template <class VarT>
std::string Names(const std::vector<Ref<VarT>>& vars) {
  return JoinMapped(vars, ", ", [](const Ref<VarT>& v) { return v ? v->name_hint : std::string("<null>"); });
}

// The statement that binds each variable, to tell "used too early" from "never defined".
class DefinitionSites : public StmtTrackingVisitor {
 public:
  std::map<const Var*, const Stmt*> sites;

  void VisitVarDef(const VarPtr& var) override {
    if (var) sites.emplace(var.get(), current_stmt());
    IRVisitor::VisitVarDef(var);
  }
};

class SSAChecker : public StmtTrackingVisitor {
 public:
  explicit SSAChecker(Reporter& reporter) : reporter_(reporter) {}

  void Run(const FunctionPtr& function) {
    if (function->body) {
      DefinitionSites collector;
      collector.VisitStmt(function->body);
      later_sites_ = std::move(collector.sites);
    }
    frames_.push_back({});
    const std::string signature = "the parameter list of " + reporter_.FunctionLabel();
    for (const auto& param : function->params) {
      Define(param, *function, param ? param->span : function->span, signature);
    }
    for (const auto& param : function->params) {
      if (!param) continue;
      for (const Var* dim : DimVarsOf(param->type)) DefineSignatureDim(dim);
    }
    if (function->body) VisitStmt(function->body);
  }

  void Visit_(const Ref<Var>& var) override { CheckUse(*var); }
  void Visit_(const Ref<IterArg>& var) override { CheckUse(*var); }

  void Visit_(const Ref<AssignStmt>& stmt) override {
    VisitIfPresent(stmt->value);
    Define(stmt->var, *stmt, stmt->span, Describe(*stmt));
  }

  void Visit_(const Ref<ForStmt>& stmt) override {
    const std::string where = Describe(*stmt);
    VisitIfPresent(stmt->start);
    VisitIfPresent(stmt->stop);
    VisitIfPresent(stmt->step);
    VisitInitValues(stmt->iter_args);
    VisitAttrExprs(stmt->attrs);
    CheckLoopState(*stmt, stmt->iter_args, stmt->body, stmt->return_vars);
    OpenScope("is defined in the body of " + where + LoopLeakAdvice());
    Define(stmt->loop_var, *stmt, stmt->span, where,
           "is the loop variable of " + where + " and is visible only inside that loop");
    DefineIterArgs(*stmt, stmt->iter_args, stmt->return_vars);
    VisitBranch(stmt->body);
    CloseScope();
    for (const auto& var : stmt->return_vars) Define(var, *stmt, stmt->span, where);
  }

  void Visit_(const Ref<WhileStmt>& stmt) override {
    const std::string where = Describe(*stmt);
    VisitInitValues(stmt->iter_args);
    CheckLoopState(*stmt, stmt->iter_args, stmt->body, stmt->return_vars);
    OpenScope("is defined in the body of " + where + LoopLeakAdvice());
    DefineIterArgs(*stmt, stmt->iter_args, stmt->return_vars);
    VisitIfPresent(stmt->condition);
    VisitBranch(stmt->body);
    CloseScope();
    for (const auto& var : stmt->return_vars) Define(var, *stmt, stmt->span, where);
  }

  void Visit_(const Ref<IfStmt>& stmt) override {
    const std::string where = Describe(*stmt);
    VisitIfPresent(stmt->condition);
    CheckIfState(*stmt);
    const char* advice =
        " and is not visible after it; values leave an if only through its return_vars: yield the value from "
        "both branches and use the return var";
    if (stmt->then_body) {
      OpenScope("is defined in the then branch of " + where + advice);
      VisitBranch(stmt->then_body);
      CloseScope();
    }
    if (stmt->else_body) {
      OpenScope("is defined in the else branch of " + where + advice);
      VisitBranch(stmt->else_body);
      CloseScope();
    }
    for (const auto& var : stmt->return_vars) Define(var, *stmt, stmt->span, where);
  }

  // A scope runs once in place: its definitions stay visible after it, but
  // it is not a loop body, so a yield inside it has nothing to feed.
  // Its task id names the task the scope submits, so it is defined only once
  // the scope statement is done: visible after it, never inside it.
  void Visit_(const Ref<ScopeStmt>& stmt) override {
    if (stmt->task_id) pending_task_ids_.emplace(stmt->task_id.get(), stmt.get());
    VisitIfPresent(stmt->core_num);
    VisitAttrExprs(stmt->attrs);
    yield_slots_.push_back(nullptr);
    if (stmt->body) VisitStmt(stmt->body);
    yield_slots_.pop_back();
    if (!stmt->task_id) return;
    pending_task_ids_.erase(stmt->task_id.get());
    Define(stmt->task_id, *stmt, stmt->span, Describe(*stmt));
  }

  void Visit_(const Ref<YieldStmt>& stmt) override {
    if (yield_slots_.empty() || yield_slots_.back() != stmt.get()) {
      reporter_.Error(kSSA, "MISPLACED_YIELD", *stmt, stmt->span,
                      "a yield may only be the last statement of a loop body or an if branch, where it gives the "
                      "values of the iter_args or return_vars; move it to the end of the enclosing loop body or "
                      "if branch, or remove it");
    }
    VisitChildren(*stmt);
  }

 private:
  struct Frame {
    std::string leak_explanation;  // why a variable of this frame is not visible after it
    std::vector<std::pair<const Var*, std::string>> vars;
  };

  static const char* LoopLeakAdvice() {
    return " and is not visible after it; values leave a loop only through its iter_args: yield the value and use "
           "the matching return var";
  }

  void VisitIfPresent(const ExprPtr& expr) {
    if (expr) VisitExpr(expr);
  }

  void VisitInitValues(const std::vector<IterArgPtr>& iter_args) {
    for (const auto& arg : iter_args) {
      if (arg) VisitIfPresent(arg->init_value);
    }
  }

  void VisitAttrExprs(const Attrs& attrs) {
    for (const auto& [key, value] : attrs) {
      if (const auto* expr = std::get_if<ExprPtr>(&value)) VisitIfPresent(*expr);
      if (const auto* exprs = std::get_if<std::vector<ExprPtr>>(&value)) {
        for (const auto& e : *exprs) VisitIfPresent(e);
      }
    }
  }

  // A loop body or if branch: its trailing yield is the one allowed there.
  void VisitBranch(const StmtPtr& body) {
    if (!body) return;
    yield_slots_.push_back(As<YieldStmt>(TrailingStmt(body)));
    VisitStmt(body);
    yield_slots_.pop_back();
  }

  void OpenScope(std::string leak_explanation) { frames_.push_back({std::move(leak_explanation), {}}); }

  void CloseScope() {
    for (auto& [var, explanation] : frames_.back().vars) {
      visible_.erase(var);
      closed_.emplace(var, explanation.empty() ? frames_.back().leak_explanation : std::move(explanation));
    }
    frames_.pop_back();
  }

  void Define(const VarPtr& var, const Node& at, const Span& span, const std::string& where,
              std::string leak_explanation = "") {
    if (!var) return;
    auto [first, inserted] = definitions_.emplace(var.get(), where);
    if (!inserted) {
      reporter_.Error(kSSA, "MULTIPLE_ASSIGNMENT", at, span,
                      "'" + var->name_hint + "' is defined more than once (first by " + first->second +
                          "); in SSA form every variable has exactly one definition: define a new variable here");
      return;
    }
    visible_.insert(var.get());
    frames_.back().vars.emplace_back(var.get(), std::move(leak_explanation));
  }

  void DefineSignatureDim(const Var* dim) {
    if (!definitions_.emplace(dim, "the signature of " + reporter_.FunctionLabel()).second) return;
    visible_.insert(dim);
    frames_.back().vars.emplace_back(dim, "");
  }

  void DefineIterArgs(const Stmt& loop, const std::vector<IterArgPtr>& iter_args,
                      const std::vector<VarPtr>& return_vars) {
    const std::string where = Describe(loop);
    for (size_t i = 0; i < iter_args.size(); ++i) {
      std::string leak = "is an iter_arg of " + where + " and is visible only inside that loop";
      if (i < return_vars.size() && return_vars[i]) {
        leak += "; after the loop use its return var '" + return_vars[i]->name_hint + "'";
      }
      Define(iter_args[i], loop, loop.span, where, std::move(leak));
    }
  }

  void CheckUse(const Var& var) {
    if (visible_.count(&var)) return;
    const Stmt& stmt = *current_stmt();
    if (!reported_uses_.insert({&var, &stmt}).second) return;
    const std::string name = "'" + var.name_hint + "'";
    if (auto closed = closed_.find(&var); closed != closed_.end()) {
      reporter_.Error(kSSA, "SCOPE_VIOLATION", stmt, stmt.span, name + " " + closed->second);
      return;
    }
    if (auto scope = pending_task_ids_.find(&var); scope != pending_task_ids_.end()) {
      reporter_.Error(kUseAfterDef, "TASK_ID_IN_OWN_SCOPE", stmt, stmt.span,
                      name + " is the task id of " + Describe(*scope->second) +
                          " and is defined only after that scope ends; use it in a later statement, e.g. in "
                          "deps=[" + var.name_hint + "] of a later scope");
      return;
    }
    if (auto site = later_sites_.find(&var); site != later_sites_.end()) {
      reporter_.Error(kUseAfterDef, "USE_BEFORE_DEF", stmt, stmt.span,
                      name + " is used before its definition by " + Describe(*site->second) +
                          "; define it before this use");
      return;
    }
    reporter_.Error(kUseAfterDef, "UNDEFINED_VAR", stmt, stmt.span,
                    name + " is not defined in " + reporter_.FunctionLabel() +
                        ": it is not a parameter and no statement defines it; pass it in as a parameter, or "
                        "assign it before this use");
  }

  void CheckLoopState(const Stmt& loop, const std::vector<IterArgPtr>& iter_args, const StmtPtr& body,
                      const std::vector<VarPtr>& return_vars) {
    const std::string where = Describe(loop);
    if (iter_args.size() != return_vars.size()) {
      reporter_.Error(kSSA, "ITER_ARGS_RETURN_VARS_MISMATCH", loop, loop.span,
                      where + " has " + std::to_string(iter_args.size()) + " iter_arg(s) (" + Names(iter_args) +
                          ") but " + std::to_string(return_vars.size()) + " return var(s) (" + Names(return_vars) +
                          "); every iter_arg needs exactly one return var that holds its value after the loop");
    }
    for (size_t i = 0; i < iter_args.size(); ++i) {
      const IterArgPtr& arg = iter_args[i];
      if (!arg) continue;
      if (arg->init_value && !CarriedTypeAccepts(arg->type, arg->init_value->type)) {
        reporter_.Error(kSSA, "ITER_ARG_TYPE_MISMATCH", loop, loop.span,
                        "iter_arg '" + arg->name_hint + "' has type " + TypeToString(arg->type) +
                            " but its initial value has type " + TypeToString(arg->init_value->type) +
                            "; start it from a value of its own type");
      }
      const VarPtr rv = i < return_vars.size() ? return_vars[i] : nullptr;
      if (rv && !CarriedTypeAccepts(arg->type, rv->type)) {
        reporter_.Error(kSSA, "ITER_ARG_TYPE_MISMATCH", loop, loop.span,
                        "return var '" + rv->name_hint + "' has type " + TypeToString(rv->type) +
                            " but its iter_arg '" + arg->name_hint + "' has type " + TypeToString(arg->type) +
                            "; give both the same type");
      }
    }
    std::vector<VarPtr> carried(iter_args.begin(), iter_args.end());
    CheckTrailingYield(loop, "the body of " + where, body, carried, "iter_arg");
  }

  void CheckIfState(const IfStmt& stmt) {
    const std::string where = Describe(stmt);
    if (!stmt.return_vars.empty() && !stmt.else_body) {
      reporter_.Error(kSSA, "MISSING_YIELD", stmt, stmt.span,
                      where + " defines " + std::to_string(stmt.return_vars.size()) + " return var(s) (" +
                          Names(stmt.return_vars) +
                          ") but has no else branch; both branches must end with a yield of one value per return var");
    }
    CheckTrailingYield(stmt, "the then branch of " + where, stmt.then_body, stmt.return_vars, "return var");
    if (stmt.else_body) {
      CheckTrailingYield(stmt, "the else branch of " + where, stmt.else_body, stmt.return_vars, "return var");
    }
  }

  // `targets` are the variables the trailing yield of `region` gives values to.
  void CheckTrailingYield(const Stmt& owner, const std::string& region, const StmtPtr& body,
                          const std::vector<VarPtr>& targets, const std::string& target_kind) {
    const auto* yield = As<YieldStmt>(TrailingStmt(body));
    if (targets.empty()) {
      if (yield == nullptr || yield->values.empty()) return;
      reporter_.Error(kSSA, "YIELD_COUNT_MISMATCH", *yield, yield->span,
                      "the yield ending " + region + " gives " + std::to_string(yield->values.size()) +
                          " value(s) but " + Describe(owner) + " has no " + target_kind +
                          "s to receive them; remove the values, or add " + target_kind + "s for them");
      return;
    }
    if (yield == nullptr) {
      reporter_.Error(kSSA, "MISSING_YIELD", owner, owner.span,
                      region + " does not end with a yield, but " + Describe(owner) + " has " +
                          std::to_string(targets.size()) + " " + target_kind + "(s) (" + Names(targets) +
                          "); end it with pl.yield_(...) giving one value per " + target_kind);
      return;
    }
    if (yield->values.size() != targets.size()) {
      reporter_.Error(kSSA, "YIELD_COUNT_MISMATCH", *yield, yield->span,
                      "the yield ending " + region + " gives " + std::to_string(yield->values.size()) +
                          " value(s) but " + Describe(owner) + " has " + std::to_string(targets.size()) + " " +
                          target_kind + "(s) (" + Names(targets) + "); yield one value per " + target_kind);
      return;
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      const ExprPtr& value = yield->values[i];
      if (!value || !targets[i] || CarriedTypeAccepts(targets[i]->type, value->type)) continue;
      reporter_.Error(kSSA, "YIELD_TYPE_MISMATCH", *yield, yield->span,
                      "yield value " + std::to_string(i) + " has type " + TypeToString(value->type) + " but " +
                          target_kind + " '" + targets[i]->name_hint + "' has type " +
                          TypeToString(targets[i]->type) + "; yield a value of the " + target_kind + "'s type");
    }
  }

  Reporter& reporter_;
  std::map<const Var*, const Stmt*> later_sites_;
  std::map<const Var*, const ScopeStmt*> pending_task_ids_;  // task ids of the scopes being visited
  std::map<const Var*, std::string> definitions_;  // var -> where it was first defined
  std::vector<Frame> frames_;
  std::unordered_set<const Var*> visible_;
  std::map<const Var*, std::string> closed_;  // var -> why it is out of scope
  std::set<std::pair<const Var*, const Stmt*>> reported_uses_;
  std::vector<const Stmt*> yield_slots_;  // per enclosing body: the yield allowed there
};

}  // namespace

void CheckSSA(const FunctionPtr& function, Reporter& reporter) { SSAChecker(reporter).Run(function); }

}  // namespace pypto::ir::verifier
