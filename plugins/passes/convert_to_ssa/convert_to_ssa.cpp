#include "convert_to_ssa.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"
#include "ssa_liveness.h"

namespace pypto::passes {

using ir::ExprPtr;
using ir::IterArgPtr;
using ir::Ref;
using ir::Stmt;
using ir::StmtPtr;
using ir::Var;
using ir::VarPtr;

namespace {

// What one program point knows about each variable as written: the variable
// that holds its value now, or why it has none here (for the error message).
struct Bindings {
  std::unordered_map<const Var*, VarPtr> current;
  std::unordered_map<const Var*, std::string> unavailable;

  VarPtr Lookup(const Var* var) const {
    auto it = current.find(var);
    return it == current.end() ? nullptr : it->second;
  }
};

// A variable a loop carries from one iteration to the next and out of the loop.
struct Carry {
  VarPtr original;
  IterArgPtr iter_arg;
  VarPtr return_var;
};

std::string Describe(const Stmt& stmt) {
  std::string at = " at " + stmt.span.ToString();
  if (const auto* loop = ir::As<ir::ForStmt>(&stmt)) {
    return "the for loop over '" + (loop->loop_var ? loop->loop_var->name_hint : std::string("?")) + "'" + at;
  }
  if (ir::As<ir::WhileStmt>(&stmt)) return "the while loop" + at;
  if (ir::As<ir::IfStmt>(&stmt)) return "the if" + at;
  return std::string("the ") + stmt.type_name() + at;
}

std::string Quoted(const Var& var) { return "'" + var.name_hint + "'"; }

// The first break or continue that leaves the loop whose body is visited.
class LoopExitFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  const Stmt* exit = nullptr;

  void Visit_(const Ref<ir::ForStmt>&) override {}
  void Visit_(const Ref<ir::WhileStmt>&) override {}
  void Visit_(const Ref<ir::BreakStmt>& s) override { Record(s.get()); }
  void Visit_(const Ref<ir::ContinueStmt>& s) override { Record(s.get()); }

 private:
  void Record(const Stmt* s) {
    if (exit == nullptr) exit = s;
  }
};

bool EndsWithYield(const StmtPtr& stmt) {
  if (ir::As<ir::YieldStmt>(stmt)) return true;
  auto seq = ir::As<ir::SeqStmts>(stmt);
  return seq && !seq->stmts.empty() && EndsWithYield(seq->stmts.back());
}

// `body` with `values` added to its trailing yield, or ending in a new yield.
// A missing body becomes a SeqStmts holding the yield, as the parser builds
// every branch, so that printing and parsing the result gives it back.
StmtPtr WithTrailingYield(const StmtPtr& body, const std::vector<ExprPtr>& values, const Span& span) {
  if (values.empty()) return body;
  if (!body) return ir::SeqStmts::Make({ir::YieldStmt::Make(values, span)}, span);
  if (auto yield = ir::As<ir::YieldStmt>(body)) {
    auto copy = std::make_shared<ir::YieldStmt>(*yield);
    copy->values.insert(copy->values.end(), values.begin(), values.end());
    return copy;
  }
  if (auto seq = ir::As<ir::SeqStmts>(body); seq && !seq->stmts.empty()) {
    auto copy = std::make_shared<ir::SeqStmts>(*seq);
    if (EndsWithYield(copy->stmts.back())) {
      copy->stmts.back() = WithTrailingYield(copy->stmts.back(), values, span);
    } else {
      copy->stmts.push_back(ir::YieldStmt::Make(values, span));
    }
    return copy;
  }
  return ir::SeqStmts::Make({body, ir::YieldStmt::Make(values, span)}, span);
}

// A constant of a scalar type, to start a loop-carried variable that every
// iteration assigns before reading; null for other types.
ExprPtr ZeroOf(const ir::TypePtr& type) {
  auto scalar = ir::As<ir::ScalarType>(type);
  if (!scalar) return nullptr;
  const ir::DataType dtype = scalar->dtype;
  if (dtype.is_bool()) return ir::Bool(false);
  if (dtype.is_int()) return ir::Int(0, dtype);
  if (dtype.is_float()) return ir::Float(0.0, dtype);
  return nullptr;
}

// Whether the loop's bounds are literals that make it run at least once.
bool RunsAtLeastOnce(const ir::ForStmt& loop) {
  auto start = ir::AsConstInt(loop.start);
  auto stop = ir::AsConstInt(loop.stop);
  auto step = ir::AsConstInt(loop.step);
  if (!start || !stop || !step) return false;
  return (*step > 0 && *start < *stop) || (*step < 0 && *start > *stop);
}

// Converts one function. Walks the body in program order with the binding of
// every variable as written; each definition after the first binds a fresh
// variable, and ifs and loops merge the bindings of their paths through
// return_vars and iter_args. Only variables read afterwards are merged.
class SsaConverter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit SsaConverter(const ir::FunctionPtr& function) : function_(function), liveness_(*function) {
    for (const auto& def : DefinitionsIn(function->body)) defined_in_body_.insert(def.get());
  }

  ir::FunctionPtr Run() {
    std::vector<VarPtr> params;
    bool changed = false;
    for (const auto& param : function_->params) {
      params.push_back(param ? Define(param) : param);
      changed |= params.back() != param;
    }
    StmtPtr body = function_->body ? VisitStmt(function_->body) : nullptr;
    if (!changed && body == function_->body) return function_;
    auto copy = std::make_shared<ir::Function>(*function_);
    copy->params = std::move(params);
    copy->body = std::move(body);
    return copy;
  }

  StmtPtr VisitStmt(const StmtPtr& stmt) override {
    stmts_.push_back(stmt.get());
    StmtPtr out = IRMutator::VisitStmt(stmt);
    stmts_.pop_back();
    return out;
  }

  ExprPtr Mutate_(const Ref<ir::Var>& var) override { return Resolve(var); }
  ExprPtr Mutate_(const Ref<ir::IterArg>& var) override { return Resolve(var); }
  ExprPtr Mutate_(const Ref<ir::MemRef>& var) override { return var; }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    ExprPtr value = node->value ? VisitExpr(node->value) : nullptr;
    VarPtr var = node->var ? Define(node->var) : nullptr;
    if (value == node->value && var == node->var) return node;
    auto copy = std::make_shared<ir::AssignStmt>(*node);
    copy->var = std::move(var);
    copy->value = std::move(value);
    return copy;
  }

  StmtPtr Mutate_(const Ref<ir::ScopeStmt>& node) override {
    ExprPtr core_num = node->core_num ? VisitExpr(node->core_num) : nullptr;
    ir::Attrs attrs = node->attrs;
    const bool attrs_changed = RewriteAttrExprs(attrs);
    // A scope runs once in place: its definitions stay visible after it.
    StmtPtr body = node->body ? VisitStmt(node->body) : nullptr;
    VarPtr task_id = node->task_id ? Define(node->task_id) : nullptr;
    if (core_num == node->core_num && !attrs_changed && body == node->body && task_id == node->task_id) return node;
    auto copy = std::make_shared<ir::ScopeStmt>(*node);
    copy->core_num = std::move(core_num);
    copy->attrs = std::move(attrs);
    copy->body = std::move(body);
    copy->task_id = std::move(task_id);
    return copy;
  }

  StmtPtr Mutate_(const Ref<ir::IfStmt>& node) override {
    ExprPtr condition = VisitExpr(node->condition);
    const Bindings before = bindings_;
    StmtPtr then_body = node->then_body ? VisitStmt(node->then_body) : nullptr;
    const Bindings after_then = std::exchange(bindings_, before);
    StmtPtr else_body = node->else_body ? VisitStmt(node->else_body) : nullptr;
    const Bindings after_else = std::exchange(bindings_, before);

    std::vector<VarPtr> phis;
    std::vector<ExprPtr> then_values;
    std::vector<ExprPtr> else_values;
    std::unordered_set<const Var*> own(node->return_vars.size());
    for (const auto& rv : node->return_vars) own.insert(rv.get());
    const VarSet& live = liveness_.LiveAfter(node.get());
    for (const Var* var : ChangedVars(before, {&after_then, &after_else})) {
      if (own.count(var)) continue;
      VarPtr then_value = after_then.Lookup(var);
      VarPtr else_value = after_else.Lookup(var);
      if (!live.count(var)) {
        MarkUnavailable(*var, "is assigned inside " + Describe(*node) + " and its value is not carried out of it");
      } else if (then_value && else_value) {
        phis.push_back(Var::Make(FreshName(*var, "phi"), var->type, node->span));
        then_values.push_back(then_value);
        else_values.push_back(else_value);
        Bind(*var, phis.back());
      } else {
        const Bindings& missing_path = then_value ? after_else : after_then;
        MarkUnavailable(*var, OneSidedReason(*node, *var, before, missing_path, then_value != nullptr));
      }
    }

    std::vector<VarPtr> return_vars;
    for (const auto& rv : node->return_vars) return_vars.push_back(rv ? Define(rv) : rv);
    return_vars.insert(return_vars.end(), phis.begin(), phis.end());
    then_body = WithTrailingYield(then_body, then_values, node->span);
    else_body = WithTrailingYield(else_body, else_values, node->span);
    if (condition == node->condition && then_body == node->then_body && else_body == node->else_body &&
        return_vars == node->return_vars) {
      return node;
    }
    auto copy = std::make_shared<ir::IfStmt>(*node);
    copy->condition = std::move(condition);
    copy->then_body = std::move(then_body);
    copy->else_body = std::move(else_body);
    copy->return_vars = std::move(return_vars);
    return copy;
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override {
    ExprPtr start = VisitExpr(node->start);
    ExprPtr stop = VisitExpr(node->stop);
    ExprPtr step = VisitExpr(node->step);
    ir::Attrs attrs = node->attrs;
    const bool attrs_changed = RewriteAttrExprs(attrs);
    std::vector<ExprPtr> inits = VisitInits(node->iter_args);

    const Bindings before = bindings_;
    std::vector<VarPtr> own(node->iter_args.begin(), node->iter_args.end());
    own.push_back(node->loop_var);
    std::vector<Carry> carries = PlanCarries(*node, node->body, own, RunsAtLeastOnce(*node));
    VarPtr loop_var = Define(node->loop_var);
    std::vector<IterArgPtr> iter_args = DefineIterArgs(node->iter_args, inits);
    StmtPtr body = VisitStmt(node->body);
    body = YieldCarries(*node, carries, body);
    std::vector<VarPtr> return_vars = LeaveLoop(*node, before, own, carries, node->return_vars);
    for (const auto& carry : carries) iter_args.push_back(carry.iter_arg);

    if (start == node->start && stop == node->stop && step == node->step && !attrs_changed &&
        loop_var == node->loop_var && iter_args == node->iter_args && body == node->body &&
        return_vars == node->return_vars) {
      return node;
    }
    auto copy = std::make_shared<ir::ForStmt>(*node);
    copy->start = std::move(start);
    copy->stop = std::move(stop);
    copy->step = std::move(step);
    copy->attrs = std::move(attrs);
    copy->loop_var = std::move(loop_var);
    copy->iter_args = std::move(iter_args);
    copy->body = std::move(body);
    copy->return_vars = std::move(return_vars);
    return copy;
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& node) override {
    std::vector<ExprPtr> inits = VisitInits(node->iter_args);
    const Bindings before = bindings_;
    std::vector<VarPtr> own(node->iter_args.begin(), node->iter_args.end());
    std::vector<Carry> carries = PlanCarries(*node, node->body, own, false);
    std::vector<IterArgPtr> iter_args = DefineIterArgs(node->iter_args, inits);
    // The condition runs at the head of every iteration, over the carried values.
    ExprPtr condition = VisitExpr(node->condition);
    StmtPtr body = VisitStmt(node->body);
    body = YieldCarries(*node, carries, body);
    std::vector<VarPtr> return_vars = LeaveLoop(*node, before, own, carries, node->return_vars);
    for (const auto& carry : carries) iter_args.push_back(carry.iter_arg);

    if (condition == node->condition && iter_args == node->iter_args && body == node->body &&
        return_vars == node->return_vars) {
      return node;
    }
    auto copy = std::make_shared<ir::WhileStmt>(*node);
    copy->condition = std::move(condition);
    copy->iter_args = std::move(iter_args);
    copy->body = std::move(body);
    copy->return_vars = std::move(return_vars);
    return copy;
  }

 private:
  [[noreturn]] void Fail(const std::string& message, const Span& span) const {
    throw Error(ErrorKind::kValue, "ConvertToSSA: in function '" + function_->name + "', " + message, span);
  }

  // The span of the innermost statement being converted that has one.
  Span CurrentSpan() const {
    for (auto it = stmts_.rbegin(); it != stmts_.rend(); ++it) {
      if ((*it)->span.known()) return (*it)->span;
    }
    return function_->span;
  }

  std::string FreshName(const Var& var, const char* role) {
    return var.name_hint + "__" + role + "_v" + std::to_string(++versions_[var.name_hint]);
  }

  void Bind(const Var& original, VarPtr var) {
    bindings_.unavailable.erase(&original);
    bindings_.current[&original] = std::move(var);
  }

  void MarkUnavailable(const Var& original, std::string reason) {
    bindings_.current.erase(&original);
    bindings_.unavailable[&original] = std::move(reason);
  }

  // A binding site: the first definition keeps its variable (so SSA input is
  // left as it is), each later one gets a fresh variable.
  VarPtr Define(const VarPtr& original) {
    if (ir::As<ir::MemRef>(original)) return original;
    VarPtr var = defined_.insert(original.get()).second
                     ? original
                     : Var::Make(FreshName(*original, "ssa"), original->type, original->span);
    Bind(*original, var);
    return var;
  }

  std::vector<IterArgPtr> DefineIterArgs(const std::vector<IterArgPtr>& iter_args, const std::vector<ExprPtr>& inits) {
    std::vector<IterArgPtr> out;
    for (size_t i = 0; i < iter_args.size(); ++i) {
      const IterArgPtr& arg = iter_args[i];
      const bool first = defined_.insert(arg.get()).second;
      IterArgPtr defined = arg;
      if (!first || inits[i] != arg->init_value) {
        defined = ir::IterArg::Make(first ? arg->name_hint : FreshName(*arg, "ssa"), arg->type, inits[i], arg->span);
      }
      Bind(*arg, defined);
      out.push_back(std::move(defined));
    }
    return out;
  }

  ExprPtr Resolve(const VarPtr& var) {
    if (VarPtr bound = bindings_.Lookup(var.get())) return bound;
    // Neither a parameter nor assigned in the body: a free variable (e.g. a
    // dimension of a parameter type); the verifier judges it.
    if (!defined_in_body_.count(var.get()) && !defined_.count(var.get())) return var;
    auto reason = bindings_.unavailable.find(var.get());
    Fail(Quoted(*var) + " is used at " + CurrentSpan().ToString() + " where it has no value: it " +
             (reason != bindings_.unavailable.end()
                  ? reason->second
                  : "is assigned only later in the function; assign " + Quoted(*var) + " before this use"),
         CurrentSpan());
  }

  std::vector<ExprPtr> VisitInits(const std::vector<IterArgPtr>& iter_args) {
    std::vector<ExprPtr> inits;
    for (const auto& arg : iter_args) inits.push_back(arg->init_value ? VisitExpr(arg->init_value) : nullptr);
    return inits;
  }

  // Rewrites the expressions among `attrs` in place; true if any changed.
  bool RewriteAttrExprs(ir::Attrs& attrs) {
    bool changed = false;
    auto rewrite = [&](ExprPtr& expr) {
      if (!expr) return;
      ExprPtr updated = VisitExpr(expr);
      changed |= updated != expr;
      expr = std::move(updated);
    };
    for (auto& [key, value] : attrs.mutable_entries()) {
      if (auto* expr = std::get_if<ExprPtr>(&value)) rewrite(*expr);
      if (auto* exprs = std::get_if<std::vector<ExprPtr>>(&value)) {
        for (auto& e : *exprs) rewrite(e);
      }
    }
    return changed;
  }

  // The variables bound differently after any of `paths` than `before`, in a
  // stable order.
  static std::vector<const Var*> ChangedVars(const Bindings& before, std::initializer_list<const Bindings*> paths) {
    std::unordered_set<const Var*> changed;
    auto consider = [&](const Var* var) {
      VarPtr old = before.Lookup(var);
      for (const Bindings* path : paths) {
        if (path->Lookup(var) != old) {
          changed.insert(var);
          return;
        }
      }
    };
    for (const Bindings* path : paths) {
      for (const auto& [var, bound] : path->current) consider(var);
      for (const auto& [var, reason] : path->unavailable) consider(var);
    }
    std::vector<const Var*> out(changed.begin(), changed.end());
    std::sort(out.begin(), out.end(), [](const Var* a, const Var* b) { return a->unique_id < b->unique_id; });
    return out;
  }

  // Why `var` has no value after the if: the branch that lacks it either
  // lost it itself (a loop-local value, say) or never assigned it.
  static std::string OneSidedReason(const ir::IfStmt& stmt, const Var& var, const Bindings& before,
                                    const Bindings& missing_path, bool assigned_in_then) {
    auto reason = missing_path.unavailable.find(&var);
    auto reason_before = before.unavailable.find(&var);
    const bool lost_in_branch = reason != missing_path.unavailable.end() &&
                                (reason_before == before.unavailable.end() || reason_before->second != reason->second);
    if (lost_in_branch) return reason->second;
    const char* assigned = assigned_in_then ? "then" : "else";
    const char* other = assigned_in_then ? "else" : "then";
    return "is assigned only in the " + std::string(assigned) + " branch of " + Describe(stmt) +
           ", so it has no value after the if when the " + other + " branch runs; assign " + Quoted(var) +
           " before the if, or in both branches";
  }

  // The variables the loop must carry: assigned in its body and read at its
  // head (by a later iteration or after the loop). Each starts from its value
  // before the loop; a variable first assigned in the body starts from a zero
  // constant only where that value can never be seen (`zero_start_allowed`:
  // the loop runs at least once) and the body assigns it before any read.
  std::vector<Carry> PlanCarries(const Stmt& loop, const StmtPtr& body, const std::vector<VarPtr>& own,
                                 bool zero_start_allowed) {
    const VarSet& head = liveness_.LiveAtHead(&loop);
    std::unordered_set<const Var*> skip;
    for (const auto& var : own) skip.insert(var.get());
    std::vector<VarPtr> candidates;
    for (const auto& def : DefinitionsIn(body)) {
      if (head.count(def.get()) && skip.insert(def.get()).second) candidates.push_back(def);
    }
    std::sort(candidates.begin(), candidates.end(),
              [](const VarPtr& a, const VarPtr& b) { return a->unique_id < b->unique_id; });

    std::vector<Carry> carries;
    for (const auto& var : candidates) {
      ExprPtr init = bindings_.Lookup(var.get());
      const bool starts_at_zero = !init && zero_start_allowed;
      if (starts_at_zero) init = ZeroOf(var->type);
      if (!init || starts_at_zero) {
        MarkUnavailable(*var, "is read before it is assigned in the first iteration of " + Describe(loop) +
                                  "; assign " + Quoted(*var) + " before the loop");
      }
      if (!init) continue;
      auto iter_arg = ir::IterArg::Make(FreshName(*var, "iter"), var->type, init, loop.span);
      if (!starts_at_zero) Bind(*var, iter_arg);
      carries.push_back({var, iter_arg, Var::Make(FreshName(*var, "rv"), var->type, loop.span)});
    }
    if (!carries.empty()) RejectLoopExits(loop, body, carries.front());
    return carries;
  }

  void RejectLoopExits(const Stmt& loop, const StmtPtr& body, const Carry& carry) const {
    LoopExitFinder finder;
    if (body) finder.VisitStmt(body);
    if (finder.exit == nullptr) return;
    const std::string keyword = ir::As<ir::BreakStmt>(finder.exit) ? "break" : "continue";
    Fail(Quoted(*carry.original) + " is reassigned in " + Describe(loop) +
             " and read after it or in a later iteration, so the loop must carry it, but the " + keyword + " at " +
             finder.exit->span.ToString() +
             " leaves the iteration early and a carried value cannot be passed on from there; restructure the "
             "loop without " + keyword + " (e.g. a while loop whose condition tests a flag), or write the "
             "iter_args and yields yourself",
         finder.exit->span.known() ? finder.exit->span : loop.span);
  }

  StmtPtr YieldCarries(const Stmt& loop, const std::vector<Carry>& carries, const StmtPtr& body) {
    std::vector<ExprPtr> values;
    for (const auto& carry : carries) {
      VarPtr value = bindings_.Lookup(carry.original.get());
      if (!value) {
        auto reason = bindings_.unavailable.find(carry.original.get());
        Fail(Quoted(*carry.original) + " is carried by " + Describe(loop) +
                 " but has no value at the end of its body: it " +
                 (reason != bindings_.unavailable.end()
                      ? reason->second
                      : "is not assigned on every path through the body; assign " + Quoted(*carry.original) +
                            " before the loop"),
             loop.span);
      }
      values.push_back(value);
    }
    return WithTrailingYield(body, values, loop.span);
  }

  // Back to the bindings before the loop: what the body assigned is visible
  // after the loop only through the return vars.
  std::vector<VarPtr> LeaveLoop(const Stmt& loop, const Bindings& before, const std::vector<VarPtr>& own,
                                const std::vector<Carry>& carries, const std::vector<VarPtr>& existing_return_vars) {
    const Bindings inside = std::exchange(bindings_, before);
    for (const Var* var : ChangedVars(before, {&inside})) {
      MarkUnavailable(*var, LoopLocalReason(loop, *var, own));
    }
    for (const auto& carry : carries) Bind(*carry.original, carry.return_var);
    std::vector<VarPtr> return_vars;
    for (const auto& rv : existing_return_vars) return_vars.push_back(rv ? Define(rv) : rv);
    for (const auto& carry : carries) return_vars.push_back(carry.return_var);
    return return_vars;
  }

  static std::string LoopLocalReason(const Stmt& loop, const Var& var, const std::vector<VarPtr>& own) {
    const auto* for_loop = ir::As<ir::ForStmt>(&loop);
    if (for_loop && for_loop->loop_var.get() == &var) {
      return "is the loop variable of " + Describe(loop) +
             " and has no value after the loop; copy it into a variable assigned before the loop if you need it "
             "afterwards";
    }
    for (const auto& arg : own) {
      if (arg.get() == &var) return "is an iter_arg of " + Describe(loop) + "; after the loop use its return var";
    }
    return "is assigned only inside " + Describe(loop) +
           ", which may run zero times, so it has no value after the loop; assign " + Quoted(var) +
           " before the loop (the loop then carries it)";
  }

  ir::FunctionPtr function_;
  SsaLiveness liveness_;
  std::unordered_set<const Var*> defined_in_body_;
  std::unordered_set<const Var*> defined_;
  std::unordered_map<std::string, int> versions_;
  Bindings bindings_;
  std::vector<const Stmt*> stmts_;
};

}  // namespace

ir::ProgramPtr ConvertToSSAPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    functions.push_back(SsaConverter(function).Run());
    changed |= functions.back() != function;
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
