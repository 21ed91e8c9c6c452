#include "outliner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "pypto/ir/call_types.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/result_params.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes::outline {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

namespace {

// Uses of variables (not MemRefs, which name storage), counted, with the order of first use.
class UseCounter : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  std::unordered_map<const ir::Var*, int> counts;
  std::vector<VarPtr> first_use_order;

  void Visit_(const Ref<ir::Var>& var) override { Count(var); }
  void Visit_(const Ref<ir::IterArg>& var) override { Count(var); }

 private:
  void Count(const VarPtr& var) {
    if (counts[var.get()]++ == 0) first_use_order.push_back(var);
  }
};

class DefCollector : public ir::IRVisitor {
 public:
  std::vector<VarPtr> defs;
  std::unordered_set<const ir::Var*> defined;
  void VisitVarDef(const VarPtr& var) override {
    if (defined.insert(var.get()).second) defs.push_back(var);
    IRVisitor::VisitVarDef(var);
  }
};

// Ops whose result is a view of argument 0: writes into the view write the base.
bool IsViewOp(const std::string& name) {
  return name == "tensor.slice" || name == "tensor.view" || name == "tensor.reshape" || name == "tensor.transpose";
}

// How the region uses each captured tensor. A variable's root is the captured
// tensor it is a view of or an in-place update of (tensor.assemble and
// tile.store results are their destination).
class AccessClassifier : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  AccessClassifier(const std::unordered_set<const ir::Var*>& captured, const CalleeLookup& callees)
      : captured_(captured), callees_(callees) {}

  std::unordered_set<const ir::Var*> read;
  std::unordered_set<const ir::Var*> written;
  std::unordered_map<const ir::Var*, const ir::Var*> root;

  const ir::Var* RootOf(const ir::Var* var) const {
    auto it = root.find(var);
    if (it != root.end()) return it->second;
    return captured_.count(var) ? var : nullptr;
  }

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    IRVisitor::Visit_(stmt);
    auto call = As<ir::Call>(stmt->value);
    if (auto var = As<ir::Var>(stmt->value)) {
      if (const ir::Var* r = RootOf(var.get())) root[stmt->var.get()] = r;
      return;
    }
    if (!call) return;
    if (call->is_function_call()) {
      RootFunctionResult(*stmt, *call);
      return;
    }
    std::optional<int> aliased = AliasedArg(*call);
    if (!aliased || *aliased >= static_cast<int>(call->args.size())) return;
    auto arg = As<ir::Var>(call->args[*aliased]);
    if (!arg) return;
    if (const ir::Var* r = RootOf(arg.get())) root[stmt->var.get()] = r;
  }

  void Visit_(const Ref<ir::Call>& call) override {
    if (call->is_function_call()) {
      ClassifyFunctionCall(*call);
      return;
    }
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op->name);
    for (size_t i = 0; i < call->args.size(); ++i) {
      auto var = As<ir::Var>(call->args[i]);
      if (!var || !def) {
        VisitExpr(call->args[i]);
        continue;
      }
      const ir::Var* r = RootOf(var.get());
      if (!r) continue;
      ClassifyArg(*def, *call, static_cast<int>(i), r);
    }
  }

  void Visit_(const Ref<ir::Var>& var) override { MarkRead(var.get()); }
  void Visit_(const Ref<ir::IterArg>& var) override { MarkRead(var.get()); }

  // A loop-carried tensor is its init value's buffer in the body and after the
  // loop; handing the buffer on (init, yield) neither reads nor writes it.
  void VisitVarDef(const VarPtr& var) override {
    auto carried = As<ir::IterArg>(var);
    auto init = carried ? As<ir::Var>(carried->init_value) : nullptr;
    const ir::Var* r = init ? RootOf(init.get()) : nullptr;
    if (!r) return IRVisitor::VisitVarDef(var);
    root[var.get()] = r;
  }

  void Visit_(const Ref<ir::YieldStmt>& stmt) override {
    for (const auto& value : stmt->values) {
      auto var = As<ir::Var>(value);
      if (!var || !RootOf(var.get())) VisitExpr(value);
    }
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    IRVisitor::Visit_(loop);
    RootLoopResults(loop->iter_args, loop->return_vars);
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    IRVisitor::Visit_(loop);
    RootLoopResults(loop->iter_args, loop->return_vars);
  }

  void Visit_(const Ref<ir::IfStmt>& branch) override {
    IRVisitor::Visit_(branch);
    for (const auto& body : {branch->then_body, branch->else_body}) RootBranchResults(body, branch->return_vars);
  }

 private:
  static std::optional<int> AliasedArg(const ir::Call& call) {
    if (IsViewOp(call.op->name)) return 0;
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
    return def ? def->output_reuses_input() : std::nullopt;
  }

  // A destination whose result is the updated buffer (assemble, store) is a
  // write; it also reads unless it only overwrites (atomic adds read).
  void ClassifyArg(const ops::OpDef& def, const ir::Call& call, int index, const ir::Var* r) {
    if (IsViewOp(call.op->name) && index == 0) return;
    const ops::ArgEffect effect = def.arg_effect(index, call.kwargs);
    const bool destination = def.output_reuses_input() == index;
    const bool atomic = call.kwargs.Get<int64_t>("atomic").value_or(0) != 0;
    if (destination || effect != ops::ArgEffect::kRead) written.insert(r);
    if (effect == ops::ArgEffect::kRead || atomic || (!destination && effect == ops::ArgEffect::kReadWrite)) {
      read.insert(r);
    }
  }

  void RootLoopResults(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (size_t i = 0; i < iter_args.size() && i < return_vars.size(); ++i) {
      if (const ir::Var* r = RootOf(iter_args[i].get())) root[return_vars[i].get()] = r;
    }
  }

  void RootBranchResults(const ir::StmtPtr& body, const std::vector<VarPtr>& return_vars) {
    std::vector<ir::StmtPtr> stmts = body ? ir::Flatten(body) : std::vector<ir::StmtPtr>{};
    auto yield = stmts.empty() ? nullptr : As<ir::YieldStmt>(stmts.back());
    if (!yield) return;
    for (size_t i = 0; i < yield->values.size() && i < return_vars.size(); ++i) {
      auto var = As<ir::Var>(yield->values[i]);
      const ir::Var* r = var ? RootOf(var.get()) : nullptr;
      if (r && !root.count(return_vars[i].get())) root[return_vars[i].get()] = r;
    }
  }

  void MarkRead(const ir::Var* var) {
    if (const ir::Var* r = RootOf(var)) read.insert(r);
  }

  // A kernel writes its Out and InOut parameters in place; an unknown callee
  // is taken to read and write every tensor it gets.
  void ClassifyFunctionCall(const ir::Call& call) {
    FunctionPtr callee = callees_(call.op->name);
    for (size_t i = 0; i < call.args.size(); ++i) {
      auto var = As<ir::Var>(call.args[i]);
      const ir::Var* r = var ? RootOf(var.get()) : nullptr;
      if (!r) {
        VisitExpr(call.args[i]);
        continue;
      }
      auto direction = callee && i < callee->param_directions.size() ? callee->param_directions[i]
                                                                       : ir::ParamDirection::InOut;
      if (direction != ir::ParamDirection::Out) read.insert(r);
      if (direction != ir::ParamDirection::In) written.insert(r);
    }
  }

  // `r = self.k(..., out)` where k writes and returns its parameter `out`: r is out's buffer.
  void RootFunctionResult(const ir::AssignStmt& stmt, const ir::Call& call) {
    FunctionPtr callee = callees_(call.op->name);
    if (!callee) return;
    std::vector<int> params = ir::ResultParams(*callee);
    if (params.size() != 1 || params[0] < 0 || params[0] >= static_cast<int>(call.args.size())) return;
    const size_t param = static_cast<size_t>(params[0]);
    if (param >= callee->param_directions.size() || callee->param_directions[param] == ir::ParamDirection::In) return;
    auto arg = As<ir::Var>(call.args[params[0]]);
    if (!arg) return;
    if (const ir::Var* r = RootOf(arg.get())) root[stmt.var.get()] = r;
  }

  const std::unordered_set<const ir::Var*>& captured_;
  const CalleeLookup& callees_;
};

// Replaces captured variables by the new function's parameters, in
// expressions and in types (dims may name captured scalars).
class Substituter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit Substituter(std::unordered_map<const ir::Var*, VarPtr> map) : map_(std::move(map)) {}

  ExprPtr Mutate_(const Ref<ir::Var>& node) override { return Lookup(node); }
  ExprPtr Mutate_(const Ref<ir::IterArg>& node) override { return Lookup(node); }

  VarPtr VisitVarDef(const VarPtr& var) override {
    TypePtr type = VisitType(var->type);
    if (type == var->type) return IRMutator::VisitVarDef(var);
    VarPtr fresh;
    if (auto iter_arg = As<ir::IterArg>(var)) {
      fresh = ir::IterArg::Make(var->name_hint, type, VisitExpr(iter_arg->init_value), var->span);
    } else {
      fresh = ir::Var::Make(var->name_hint, type, var->span);
    }
    Remap(var, fresh);
    return fresh;
  }

  TypePtr VisitType(const TypePtr& type) override {
    if (!type) return type;
    return ir::DispatchNode(*type, [&](const auto& concrete) -> TypePtr {
      using T = std::decay_t<decltype(concrete)>;
      if constexpr (std::is_base_of_v<ir::Type, T>) {
        return MutateChildren(std::static_pointer_cast<const T>(type));
      } else {
        return type;
      }
    });
  }

  VarPtr Lookup(const VarPtr& var) {
    auto it = map_.find(var.get());
    return it != map_.end() ? it->second : Remapped(var);
  }

 private:
  std::unordered_map<const ir::Var*, VarPtr> map_;
};

ir::ParamDirection DirectionOf(const AccessClassifier& access, const ir::Var* captured) {
  if (!ir::IsA<ir::TensorType>(captured->type) || !access.written.count(captured)) return ir::ParamDirection::In;
  return access.read.count(captured) ? ir::ParamDirection::InOut : ir::ParamDirection::Out;
}

// The variables in the dims of a tensor or tile type (dynamic shapes), in order.
std::vector<VarPtr> DimVarsOf(const TypePtr& type) {
  const std::vector<ExprPtr>* shape = ir::ShapeOf(type);
  if (!shape) return {};
  UseCounter dims;
  for (const auto& dim : *shape) dims.VisitExpr(dim);
  return dims.first_use_order;
}

struct Region {
  std::vector<VarPtr> live_ins;   // first-use order
  std::vector<VarPtr> live_outs;  // definition order
};

Region AnalyzeRegion(const StmtPtr& body, const UseCounter& function_uses) {
  UseCounter inside;
  inside.VisitStmt(body);
  DefCollector defs;
  defs.VisitStmt(body);
  Region region;
  std::unordered_set<const ir::Var*> listed;
  auto add_live_in = [&](const VarPtr& var) {
    if (!defs.defined.count(var.get()) && listed.insert(var.get()).second) region.live_ins.push_back(var);
  };
  for (const auto& var : inside.first_use_order) {
    // The dynamic dims of a captured tensor come first, so that its param type can name their params.
    for (const auto& dim : DimVarsOf(var->type)) add_live_in(dim);
    add_live_in(var);
  }
  for (const auto& var : defs.defs) {
    auto total = function_uses.counts.find(var.get());
    auto local = inside.counts.find(var.get());
    int outside =
        (total == function_uses.counts.end() ? 0 : total->second) - (local == inside.counts.end() ? 0 : local->second);
    if (outside > 0) region.live_outs.push_back(var);
  }
  return region;
}

struct Outlined {
  FunctionPtr function;
  std::vector<StmtPtr> call_site;
  // (live-out, the parent's fresh variable for it): the live-outs' own
  // variables move into the new function, and a variable is bound in one
  // function only.
  std::vector<std::pair<VarPtr, VarPtr>> rebound;
};

// `parent_value` gives the parent's current variable for a live-in (an
// earlier outlining may have rebound it).
Outlined Outline(const CalleeSpec& spec, const Span& span, const UseCounter& function_uses,
                 const std::function<VarPtr(const VarPtr&)>& parent_value, const CalleeLookup& callees) {
  Region region = AnalyzeRegion(spec.body, function_uses);
  std::unordered_set<const ir::Var*> captured;
  for (const auto& v : region.live_ins) captured.insert(v.get());
  AccessClassifier access(captured, callees);
  access.VisitStmt(spec.body);

  // Scalar params first: a tensor param's dims may name a captured scalar
  // (a dynamic dimension), and then name the scalar's param instead.
  std::unordered_map<const ir::Var*, VarPtr> param_of;
  for (const auto& v : region.live_ins) {
    if (ir::IsA<ir::ScalarType>(v->type)) param_of[v.get()] = ir::Var::Make(v->name_hint, v->type, v->span);
  }
  Substituter dims(param_of);
  for (const auto& v : region.live_ins) {
    if (!param_of.count(v.get())) param_of[v.get()] = ir::Var::Make(v->name_hint, dims.VisitType(v->type), v->span);
  }
  std::vector<VarPtr> params;
  std::vector<ir::ParamDirection> directions;
  for (const auto& v : region.live_ins) {
    params.push_back(param_of.at(v.get()));
    directions.push_back(DirectionOf(access, v.get()));
  }
  Substituter substituter(param_of);
  std::vector<StmtPtr> body = ir::Flatten(substituter.VisitStmt(spec.body));

  std::vector<ExprPtr> returned;
  std::vector<TypePtr> return_types;
  for (const auto& v : region.live_outs) {
    const ir::Var* r = access.RootOf(v.get());
    VarPtr value = r ? param_of.at(r) : substituter.Lookup(v);
    returned.push_back(value);
    return_types.push_back(value->type);
  }
  body.push_back(ir::ReturnStmt::Make(returned, span));

  auto function = ir::Function::Make(spec.name, spec.func_type, params, directions, return_types,
                                     ir::SeqStmts::Make(std::move(body), span), span);
  if (spec.level || spec.role || !spec.function_attrs.empty()) {
    auto copy = std::make_shared<ir::Function>(*function);
    copy->level = spec.level;
    copy->role = spec.role;
    copy->attrs = spec.function_attrs;
    function = copy;
  }

  std::vector<ExprPtr> args;
  for (const auto& v : region.live_ins) args.push_back(parent_value(v));
  // The call's results are the caller's live-outs: typed in the caller's names
  // (a dim `n` of the new function is the caller's `n` at the call site).
  TypePtr call_type = ir::CallTypeOf(ir::CallSiteReturnTypes(params, return_types, args));
  auto call =
      ir::Call::Make(ir::GlobalVar::Make(spec.name, span), std::move(args), {}, call_type, span, spec.call_attrs);
  Outlined result{function, {}, {}};
  for (const auto& v : region.live_outs) result.rebound.emplace_back(v, ir::Var::Make(v->name_hint, v->type, v->span));
  if (spec.submit) {
    auto submit = ir::Submit::Make(call, spec.deps, spec.submit_attrs, span);
    auto task = ir::Var::Make(spec.name + "_task", submit->type, span);
    result.call_site.push_back(ir::AssignStmt::Make(task, submit, span));
    for (size_t i = 0; i < region.live_outs.size(); ++i) {
      result.call_site.push_back(ir::AssignStmt::Make(
          result.rebound[i].second, ir::TupleGetItem::Make(task, static_cast<int64_t>(i), span), span));
    }
    if (spec.task_id) {
      result.call_site.push_back(
          ir::AssignStmt::Make(spec.task_id, ir::TupleGetItem::Make(task, submit->task_id_index(), span), span));
    }
  } else if (region.live_outs.empty()) {
    result.call_site.push_back(ir::EvalStmt::Make(call, span));
  } else if (region.live_outs.size() == 1) {
    result.call_site.push_back(ir::AssignStmt::Make(result.rebound[0].second, call, span));
  } else {
    auto outs = ir::Var::Make(spec.name + "_outs", call_type, span);
    result.call_site.push_back(ir::AssignStmt::Make(outs, call, span));
    for (size_t i = 0; i < region.live_outs.size(); ++i) {
      result.call_site.push_back(ir::AssignStmt::Make(
          result.rebound[i].second, ir::TupleGetItem::Make(outs, static_cast<int64_t>(i), span), span));
    }
  }
  return result;
}

class ScopeRewriter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  ScopeRewriter(const ir::Function& parent, const ScopeDecider& decide, const CalleeLookup& callees)
      : parent_(parent), decide_(decide), callees_(callees) {
    uses_.VisitStmt(parent.body);
  }

  std::vector<FunctionPtr> outlined;

  StmtPtr Mutate_(const Ref<ir::ScopeStmt>& scope) override {
    std::optional<CalleeSpec> spec = decide_(*scope, parent_, accepted_[scope->scope_kind]);
    if (!spec) return IRMutator::Mutate_(scope);
    ++accepted_[scope->scope_kind];
    VisitAttrExprs(spec->call_attrs);
    VisitAttrExprs(spec->submit_attrs);
    for (auto& dep : spec->deps) dep = VisitExpr(dep);
    Outlined result =
        Outline(*spec, scope->span, uses_, [this](const VarPtr& v) { return Remapped(v); }, callees_);
    for (const auto& [live_out, fresh] : result.rebound) Remap(live_out, fresh);
    outlined.push_back(result.function);
    return ir::SeqStmts::Make(std::move(result.call_site), scope->span);
  }

  // Splices call sites into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : node->stmts) {
      StmtPtr updated = VisitStmt(child);
      if (updated == child) {
        stmts.push_back(child);
        continue;
      }
      changed = true;
      std::vector<StmtPtr> flat = ir::Flatten(updated);
      stmts.insert(stmts.end(), flat.begin(), flat.end());
    }
    if (!changed) return node;
    auto copy = std::make_shared<ir::SeqStmts>(*node);
    copy->stmts = std::move(stmts);
    return copy;
  }

 private:
  // Attr values name the parent's variables, which earlier outlining may have rebound.
  void VisitAttrExprs(ir::Attrs& attrs) {
    for (auto& [key, value] : attrs.mutable_entries()) {
      if (auto* expr = std::get_if<ExprPtr>(&value)) *expr = VisitExpr(*expr);
      if (auto* exprs = std::get_if<std::vector<ExprPtr>>(&value)) {
        for (auto& e : *exprs) e = VisitExpr(e);
      }
    }
  }

  const ir::Function& parent_;
  const ScopeDecider& decide_;
  const CalleeLookup& callees_;
  UseCounter uses_;
  std::map<ir::ScopeKind, int> accepted_;
};

}  // namespace

void MakeSubmitIfTask(const ir::ScopeStmt& scope, const ir::Attrs& launch, CalleeSpec& spec) {
  const ir::AttrValue* deps = scope.attrs.Find("deps");
  const bool early = scope.attrs.Get<bool>("allow_early_resolve").value_or(false);
  if (!scope.task_id && deps == nullptr && !early) {
    for (const auto& [key, value] : launch) spec.call_attrs.Set(key, value);
    return;
  }
  spec.submit = true;
  spec.task_id = scope.task_id;
  spec.call_attrs = launch;
  for (const auto& [key, value] : scope.attrs) {
    if (key == "deps") {
      if (const auto* list = std::get_if<std::vector<ExprPtr>>(&value)) spec.deps = *list;
      if (const auto* single = std::get_if<ExprPtr>(&value)) spec.deps = {*single};
    } else if (key == "allow_early_resolve") {
      spec.submit_attrs.Set(key, value);
    } else {
      spec.call_attrs.Set(key, value);
    }
  }
}

std::string CalleeName(const ir::ScopeStmt& scope, const ir::Function& parent, const std::string& infix, int index) {
  if (!scope.name_hint.empty()) return scope.name_hint;
  return parent.name + "_" + infix + "_" + std::to_string(index);
}

OutlineResult OutlineScopes(const FunctionPtr& parent, const ScopeDecider& decide, const CalleeLookup& callees) {
  ScopeRewriter rewriter(*parent, decide, callees);
  FunctionPtr rewritten = rewriter.VisitFunction(parent);
  return {rewritten, std::move(rewriter.outlined)};
}

ir::ProgramPtr OutlineProgram(const ir::ProgramPtr& program, const std::string& pass_name,
                              const std::function<bool(const ir::Function&)>& eligible, const ScopeDecider& decide,
                              std::optional<ir::FunctionType> parent_becomes, bool revisit_outlined) {
  std::set<std::string> names;
  for (const auto& f : program->functions) names.insert(f->name);
  std::vector<FunctionPtr> done;
  std::vector<FunctionPtr> pending(program->functions.begin(), program->functions.end());
  // Scopes call the program's functions and the ones outlined before them.
  CalleeLookup callees = [&](const std::string& name) -> FunctionPtr {
    for (const auto* list : {&done, &pending}) {
      for (const auto& f : *list) {
        if (f->name == name) return f;
      }
    }
    return nullptr;
  };
  bool changed = false;
  while (!pending.empty()) {
    FunctionPtr function = pending.front();
    pending.erase(pending.begin());
    if (!eligible(*function)) {
      done.push_back(function);
      continue;
    }
    OutlineResult result = OutlineScopes(function, decide, callees);
    FunctionPtr parent = result.parent;
    if (!result.outlined.empty() && parent_becomes && parent->func_type == ir::FunctionType::Opaque) {
      auto copy = std::make_shared<ir::Function>(*parent);
      copy->func_type = *parent_becomes;
      parent = copy;
    }
    changed |= parent != function;
    done.push_back(parent);
    for (const auto& callee : result.outlined) {
      if (!names.insert(callee->name).second) {
        throw Error(ErrorKind::kValue,
                    pass_name + ": the scope outlined from function '" + function->name + "' would be named '" +
                        callee->name + "', but the program already has a function of that name; give the scope " +
                        "another name_hint",
                    callee->span);
      }
      if (revisit_outlined) {
        pending.push_back(callee);
      } else {
        done.push_back(callee);
      }
    }
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(done), program->span);
}

}  // namespace pypto::passes::outline
