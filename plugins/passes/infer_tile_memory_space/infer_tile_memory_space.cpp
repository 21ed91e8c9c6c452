#include "infer_tile_memory_space.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::MemorySpace;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::Var;
using ir::VarPtr;

namespace {

using SpaceMap = std::unordered_map<const Var*, MemorySpace>;
using OptionalSpace = std::optional<MemorySpace>;

constexpr const char* kPass = "InferTileMemorySpace";

OptionalSpace DeclaredSpace(const TypePtr& type) {
  auto tile = As<ir::TileType>(type);
  return tile ? tile->memory_space : std::nullopt;
}

// The variable `e` is when it holds a tile; null otherwise.
VarPtr TileVar(const ExprPtr& e) {
  auto var = As<Var>(e);
  return var && ir::IsA<ir::TileType>(var->type) ? var : nullptr;
}

bool Contains(const std::vector<MemorySpace>& spaces, MemorySpace s) {
  return std::find(spaces.begin(), spaces.end(), s) != spaces.end();
}

// The space a consumer asks of its operand's producer. A rule that admits
// both Vec and Mat (tile.move, tile.slice) leaves the producer free.
OptionalSpace DemandOf(const std::vector<MemorySpace>* allowed) {
  if (allowed == nullptr || allowed->empty()) return std::nullopt;
  if (Contains(*allowed, MemorySpace::Vec) && Contains(*allowed, MemorySpace::Mat)) return std::nullopt;
  return allowed->front();
}

const ops::OpDef* TileOpDef(const ir::Call& call) {
  if (call.is_function_call()) return nullptr;
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
  return def && def->category() == ops::OpCategory::kTileOp ? def : nullptr;
}

// A producer whose space comes from an optional kwarg the call leaves unset
// (tile.load, tile.create): this pass chooses its space.
bool IsRetargetable(const ops::OpDef& def, const ir::Call& call) {
  const ops::OutputMemoryRule& rule = def.output_memory();
  if (rule.kind != ops::OutputMemoryRule::Kind::kFromKwarg || call.kwargs.Has(rule.kwarg)) return false;
  const ops::KwargSpec* spec = def.FindKwarg(rule.kwarg);
  return spec != nullptr && !spec->required;
}

std::string ArgName(const ops::OpDef& def, size_t i) {
  const auto& args = def.args();
  if (args.empty()) return "#" + std::to_string(i);
  return i < args.size() ? args[i].name : args.back().name;
}

TypePtr WithSpace(const TypePtr& type, MemorySpace space) {
  auto tile = As<ir::TileType>(type);
  if (!tile || tile->memory_space == space) return type;
  auto copy = std::make_shared<ir::TileType>(*tile);
  copy->memory_space = space;
  return copy;
}

// ---------------------------------------------------------------- demands

// Backward demands: each constrained operand asks for the first space its
// consumer allows; the demand flows back through inherit-input ops, plain
// copies and loop carries to the producer that can honour it.
class DemandCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  SpaceMap demands;

  void Visit_(const Ref<ir::AssignStmt>& s) override {
    if (auto call = As<ir::Call>(s->value)) {
      Collect(*call, s->var);
    } else if (auto source = TileVar(s->value)) {
      edges_.emplace_back(s->var.get(), source.get());
    }
    IRVisitor::Visit_(s);
  }

  void Visit_(const Ref<ir::EvalStmt>& s) override {
    if (auto call = As<ir::Call>(s->expr)) Collect(*call, nullptr);
    IRVisitor::Visit_(s);
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    Carry(loop->iter_args, loop->return_vars);
    targets_.push_back(AsVars(loop->iter_args));
    IRVisitor::Visit_(loop);
    targets_.pop_back();
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    Carry(loop->iter_args, loop->return_vars);
    targets_.push_back(AsVars(loop->iter_args));
    IRVisitor::Visit_(loop);
    targets_.pop_back();
  }

  void Visit_(const Ref<ir::IfStmt>& s) override {
    targets_.push_back(s->return_vars);
    IRVisitor::Visit_(s);
    targets_.pop_back();
  }

  void Visit_(const Ref<ir::YieldStmt>& s) override {
    if (!targets_.empty()) {
      const auto& targets = targets_.back();
      for (size_t i = 0; i < s->values.size() && i < targets.size(); ++i) {
        if (auto value = TileVar(s->values[i])) edges_.emplace_back(targets[i].get(), value.get());
      }
    }
    IRVisitor::Visit_(s);
  }

  // Pushes demands along the edges until nothing changes.
  void Propagate() {
    for (bool changed = true; changed;) {
      changed = false;
      for (const auto& [from, to] : edges_) {
        auto it = demands.find(from);
        if (it != demands.end()) changed |= Merge(to, it->second);
      }
    }
  }

 private:
  template <class V>
  static std::vector<VarPtr> AsVars(const std::vector<V>& vars) {
    return std::vector<VarPtr>(vars.begin(), vars.end());
  }

  void Collect(const ir::Call& call, const VarPtr& result) {
    const ops::OpDef* def = TileOpDef(call);
    if (def == nullptr) return;
    for (size_t i = 0; i < call.args.size(); ++i) {
      auto arg = TileVar(call.args[i]);
      if (!arg) continue;
      if (auto demand = DemandOf(def->input_memory(static_cast<int>(i)))) Merge(arg.get(), *demand);
    }
    const ops::OutputMemoryRule& rule = def->output_memory();
    if (result && rule.kind == ops::OutputMemoryRule::Kind::kInheritInput &&
        static_cast<size_t>(rule.input) < call.args.size()) {
      if (auto input = TileVar(call.args[rule.input])) edges_.emplace_back(result.get(), input.get());
    }
  }

  void Carry(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (size_t i = 0; i < iter_args.size(); ++i) {
      if (i < return_vars.size()) edges_.emplace_back(return_vars[i].get(), iter_args[i].get());
      if (auto init = TileVar(iter_args[i]->init_value)) edges_.emplace_back(iter_args[i].get(), init.get());
    }
  }

  // Non-Vec beats Vec: a Vec demand is the default anyway.
  bool Merge(const Var* var, MemorySpace space) {
    auto [it, inserted] = demands.emplace(var, space);
    if (inserted) return true;
    if (it->second != MemorySpace::Vec || space == MemorySpace::Vec) return false;
    it->second = space;
    return true;
  }

  std::vector<std::pair<const Var*, const Var*>> edges_;  // a demand on `first` is a demand on `second`
  std::vector<std::vector<VarPtr>> targets_;              // what the innermost yield assigns
};

// ---------------------------------------------------------------- forward

// Forward, in program order: fixed output spaces, explicit target_memory,
// retargetable producers take their demand, inherit-input ops their input's
// space; loop carries and if-phis take the space of their first value.
class SpaceAssigner : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  SpaceAssigner(const ir::Function& function, const SpaceMap& demands) : function_(function), demands_(demands) {}

  SpaceMap spaces;

  void AssignParams() {
    for (const auto& param : function_.params) {
      if (!ir::IsA<ir::TileType>(param->type)) continue;
      OptionalSpace declared = DeclaredSpace(param->type);
      if (!declared) {
        throw Error(ErrorKind::kValue,
                    std::string(kPass) + ": parameter '" + param->name_hint + "' of function '" + function_.name +
                        "' is a tile without a memory space; a caller's tile "
                        "arrives in a fixed space, so declare "
                        "it in the parameter's type (for example pl.Tile[[64, "
                        "64], pl.FP32, pl.Mem.Vec])",
                    param->span.known() ? param->span : function_.span);
      }
      spaces[param.get()] = *declared;
    }
  }

  void Visit_(const Ref<ir::AssignStmt>& s) override {
    IRVisitor::Visit_(s);
    if (!ir::IsA<ir::TileType>(s->var->type)) return;
    if (auto call = As<ir::Call>(s->value)) {
      spaces[s->var.get()] = SpaceOfCall(*call, s->var);
    } else {
      spaces[s->var.get()] = SpaceOf(s->value);
    }
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    AssignCarry(loop->iter_args);
    IRVisitor::Visit_(loop);
    AssignReturns(loop->iter_args, loop->return_vars);
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    AssignCarry(loop->iter_args);
    IRVisitor::Visit_(loop);
    AssignReturns(loop->iter_args, loop->return_vars);
  }

  void Visit_(const Ref<ir::IfStmt>& s) override {
    IRVisitor::Visit_(s);
    std::vector<StmtPtr> then_stmts = ir::Flatten(s->then_body);
    auto yield = then_stmts.empty() ? nullptr : As<ir::YieldStmt>(then_stmts.back());
    for (size_t i = 0; i < s->return_vars.size(); ++i) {
      if (!ir::IsA<ir::TileType>(s->return_vars[i]->type)) continue;
      bool has_value = yield && i < yield->values.size();
      spaces[s->return_vars[i].get()] = has_value ? SpaceOf(yield->values[i]) : DefaultFor(s->return_vars[i]);
    }
  }

 private:
  void AssignCarry(const std::vector<ir::IterArgPtr>& iter_args) {
    for (const auto& arg : iter_args) {
      if (ir::IsA<ir::TileType>(arg->type)) spaces[arg.get()] = SpaceOf(arg->init_value);
    }
  }

  void AssignReturns(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (size_t i = 0; i < return_vars.size() && i < iter_args.size(); ++i) {
      if (ir::IsA<ir::TileType>(return_vars[i]->type)) spaces[return_vars[i].get()] = spaces.at(iter_args[i].get());
    }
  }

  MemorySpace DefaultFor(const VarPtr& var) const { return DeclaredSpace(var->type).value_or(MemorySpace::Vec); }

  MemorySpace SpaceOf(const ExprPtr& e) const {
    if (auto var = As<Var>(e)) {
      auto it = spaces.find(var.get());
      if (it != spaces.end()) return it->second;
    }
    return e ? DeclaredSpace(e->type).value_or(MemorySpace::Vec) : MemorySpace::Vec;
  }

  MemorySpace SpaceOfCall(const ir::Call& call, const VarPtr& result) const {
    const ops::OpDef* def = TileOpDef(call);
    if (def == nullptr) return DefaultFor(result);
    const ops::OutputMemoryRule& rule = def->output_memory();
    switch (rule.kind) {
      case ops::OutputMemoryRule::Kind::kFixed:
        return rule.space;
      case ops::OutputMemoryRule::Kind::kFromKwarg:
        if (auto explicit_space = call.kwargs.GetEnum<MemorySpace>(rule.kwarg)) return *explicit_space;
        if (IsRetargetable(*def, call)) return Retarget(*def, call, result);
        return DefaultFor(result);
      case ops::OutputMemoryRule::Kind::kInheritInput:
        if (static_cast<size_t>(rule.input) < call.args.size()) return SpaceOf(call.args[rule.input]);
        return DefaultFor(result);
      case ops::OutputMemoryRule::Kind::kNone:
        return DefaultFor(result);
    }
    return DefaultFor(result);
  }

  // The demanded space when the producer can make it, else Mat (from where a
  // tile.move reaches Left, Right, Acc and Bias). L0 buffers are only ever
  // filled by tile.move.
  MemorySpace Retarget(const ops::OpDef& def, const ir::Call& call, const VarPtr& result) const {
    auto demand = demands_.find(result.get());
    if (demand == demands_.end()) return MemorySpace::Vec;
    MemorySpace wanted = demand->second;
    if (wanted == MemorySpace::Left || wanted == MemorySpace::Right) return MemorySpace::Mat;
    ir::Attrs kwargs = call.kwargs;
    kwargs.Set(def.output_memory().kwarg, ir::EnumAttr::Of(wanted));
    try {
      def.DeduceType(call.args, kwargs, call.span);
    } catch (const Error&) {
      return MemorySpace::Mat;
    }
    return wanted;
  }

  const ir::Function& function_;
  const SpaceMap& demands_;
};

// ---------------------------------------------------------------- rewrite

// Retypes every tile variable with its space, fixes the target_memory of
// retargetable producers and inserts `v_<Space> = tile.move(v, ...)` before a
// consumer (or a yield) that needs another space. Moves are shared within a
// block and the blocks nested in it.
class SpaceRewriter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  SpaceRewriter(const ir::Function& function, const SpaceMap& spaces, const backend::Platform& platform)
      : function_(function), spaces_(spaces), platform_(platform) {
    moves_.emplace_back();
  }

  VarPtr VisitVarDef(const VarPtr& var) override {
    auto space = spaces_.find(var.get());
    TypePtr type = space == spaces_.end() ? var->type : WithSpace(var->type, space->second);
    auto iter_arg = As<ir::IterArg>(var);
    ExprPtr init = iter_arg && iter_arg->init_value ? VisitExpr(iter_arg->init_value) : nullptr;
    if (type == var->type && (!iter_arg || init == iter_arg->init_value)) return var;
    VarPtr fresh = iter_arg ? VarPtr(ir::IterArg::Make(var->name_hint, type, init, var->span))
                            : VarPtr(Var::Make(var->name_hint, type, var->span));
    Remap(var, fresh);
    return fresh;
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    moves_.emplace_back();
    StmtPtr result = MutateSplicingStatements(node);
    moves_.pop_back();
    return result;
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto call = As<ir::Call>(node->value);
    if (!call || TileOpDef(*call) == nullptr) return IRMutator::Mutate_(node);
    std::vector<StmtPtr> stmts;
    ExprPtr value = RewriteCall(*call, SpaceOfOld(node->var), stmts);
    VarPtr var = VisitVarDef(node->var);
    stmts.push_back(ir::AssignStmt::Make(var, value, node->span));
    return Sequence(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    auto call = As<ir::Call>(node->expr);
    if (!call || TileOpDef(*call) == nullptr) return IRMutator::Mutate_(node);
    std::vector<StmtPtr> stmts;
    ExprPtr value = RewriteCall(*call, std::nullopt, stmts);
    stmts.push_back(ir::EvalStmt::Make(value, node->span));
    return Sequence(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& loop) override {
    targets_.push_back(TargetSpaces(loop->iter_args));
    StmtPtr out = IRMutator::Mutate_(loop);
    targets_.pop_back();
    return out;
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& loop) override {
    targets_.push_back(TargetSpaces(loop->iter_args));
    StmtPtr out = IRMutator::Mutate_(loop);
    targets_.pop_back();
    return out;
  }

  StmtPtr Mutate_(const Ref<ir::IfStmt>& node) override {
    targets_.push_back(TargetSpaces(node->return_vars));
    StmtPtr out = IRMutator::Mutate_(node);
    targets_.pop_back();
    return out;
  }

  StmtPtr Mutate_(const Ref<ir::YieldStmt>& node) override {
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> values;
    bool changed = false;
    for (size_t i = 0; i < node->values.size(); ++i) {
      ExprPtr value = VisitExpr(node->values[i]);
      OptionalSpace target = !targets_.empty() && i < targets_.back().size() ? targets_.back()[i] : std::nullopt;
      auto var = TileVar(value);
      if (target && var && DeclaredSpace(var->type) != target) {
        value = MoveTo(var, *target, "the loop or branch result it is yielded to", node->span, stmts);
      }
      changed |= value != node->values[i];
      values.push_back(value);
    }
    if (!changed) return node;
    stmts.push_back(ir::YieldStmt::Make(std::move(values), node->span));
    return Sequence(std::move(stmts), node->span);
  }

 private:
  template <class V>
  std::vector<OptionalSpace> TargetSpaces(const std::vector<V>& vars) const {
    std::vector<OptionalSpace> out;
    for (const auto& v : vars) out.push_back(SpaceOfOld(v));
    return out;
  }

  OptionalSpace SpaceOfOld(const VarPtr& var) const {
    auto it = spaces_.find(var.get());
    return it == spaces_.end() ? std::nullopt : OptionalSpace(it->second);
  }

  static StmtPtr Sequence(std::vector<StmtPtr> stmts, const Span& span) {
    if (stmts.size() == 1) return stmts.front();
    return ir::SeqStmts::Make(std::move(stmts), span);
  }

  ExprPtr RewriteCall(const ir::Call& call, OptionalSpace result_space, std::vector<StmtPtr>& stmts) {
    const ops::OpDef& def = *TileOpDef(call);
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < call.args.size(); ++i) {
      ExprPtr arg = VisitExpr(call.args[i]);
      const std::vector<MemorySpace>* allowed = def.input_memory(static_cast<int>(i));
      OptionalSpace space = DeclaredSpace(arg->type);
      if (allowed != nullptr && !allowed->empty() && space && !Contains(*allowed, *space)) {
        auto var = TileVar(arg);
        if (!var) RejectNestedOperand(call, def, i);
        arg = MoveTo(var, allowed->front(), "argument '" + ArgName(def, i) + "' of " + call.op->name, call.span,
                     stmts);
      }
      args.push_back(arg);
    }
    ir::Attrs kwargs = call.kwargs;
    if (result_space && IsRetargetable(def, call)) {
      kwargs.Set(def.output_memory().kwarg, ir::EnumAttr::Of(*result_space));
    }
    ir::CallPtr rebuilt =
        ops::OpRegistry::Global().Create(call.op->name, std::move(args), std::move(kwargs), call.span);
    if (!result_space) return rebuilt;
    TypePtr type = WithSpace(rebuilt->type, *result_space);
    if (type == rebuilt->type) return rebuilt;
    return ir::Call::Make(rebuilt->op, rebuilt->args, rebuilt->kwargs, type, rebuilt->span, call.attrs);
  }

  [[noreturn]] void RejectNestedOperand(const ir::Call& call, const ops::OpDef& def, size_t i) const {
    throw Error(ErrorKind::kValue,
                std::string(kPass) + ": in function '" + function_.name + "', argument '" + ArgName(def, i) + "' of " +
                    call.op->name +
                    " is a nested expression in the wrong memory space, and a "
                    "tile.move can only be placed before "
                    "a variable; run FlattenCallExpr first so that every "
                    "operand is a variable",
                call.span);
  }

  // `var` in `space`: a tile.move per step of the platform's path there
  // (Acc -> Mat -> Left, say), each made once per block and reused.
  VarPtr MoveTo(const VarPtr& var, MemorySpace space, const std::string& consumer, const Span& span,
                std::vector<StmtPtr>& stmts) {
    MemorySpace from = *DeclaredSpace(var->type);
    auto path = platform_.MovePath(from, space);
    if (!path) RejectMove(var, from, space, consumer, span);
    VarPtr current = var;
    for (size_t step = 1; step < path->size(); ++step) current = MoveStep(var, current, (*path)[step], span, stmts);
    return current;
  }

  VarPtr MoveStep(const VarPtr& original, const VarPtr& current, MemorySpace space, const Span& span,
                  std::vector<StmtPtr>& stmts) {
    const auto key = std::make_pair(original.get(), space);
    for (auto scope = moves_.rbegin(); scope != moves_.rend(); ++scope) {
      auto it = scope->find(key);
      if (it != scope->end()) return it->second;
    }
    ir::CallPtr move =
        ops::OpRegistry::Global().Create("tile.move", {current}, {{"target_memory", ir::EnumAttr::Of(space)}}, span);
    VarPtr moved = Var::Make(original->name_hint + "_" + ir::ToString(space), move->type, span);
    stmts.push_back(ir::AssignStmt::Make(moved, move, span));
    moves_.back()[key] = moved;
    return moved;
  }

  [[noreturn]] void RejectMove(const VarPtr& var, MemorySpace from, MemorySpace to, const std::string& consumer,
                               const Span& span) const {
    auto list = [](const std::vector<std::pair<MemorySpace, MemorySpace>>& pairs) {
      std::string text;
      for (const auto& [a, b] : pairs) text += std::string(text.empty() ? "" : ", ") + ir::ToString(a) + "->" + ir::ToString(b);
      return text.empty() ? std::string("none") : text;
    };
    throw Error(ErrorKind::kValue,
                std::string(kPass) + ": in function '" + function_.name + "', " + consumer + " needs '" +
                    var->name_hint + "' in " + ir::ToString(to) + ", but it is in " + ir::ToString(from) +
                    " and platform '" + platform_.name + "' has no way from " + ir::ToString(from) + " to " +
                    ir::ToString(to) + " (its moves: " + list(platform_.moves) + "; core transfers: " +
                    list(platform_.core_transfers) + "); produce the value where it can reach " +
                    ir::ToString(to) + ", or store it to a tensor with tile.store and tile.load it back",
                span);
  }

  const ir::Function& function_;
  const SpaceMap& spaces_;
  const backend::Platform& platform_;
  std::vector<std::map<std::pair<const Var*, MemorySpace>, VarPtr>> moves_;  // per block, innermost last
  std::vector<std::vector<OptionalSpace>> targets_;                          // spaces the innermost yield assigns
};

// ---------------------------------------------------------------- hoist

// Every variable a statement binds, at any depth.
class DefinedVars : public ir::IRVisitor {
 public:
  std::set<const Var*> vars;
  void VisitVarDef(const VarPtr& var) override {
    vars.insert(var.get());
    IRVisitor::VisitVarDef(var);
  }
};

// How a loop body uses each variable: as the tensor of a tile.load, as the
// source of a move into Left or Right, or otherwise.
class UseCounter : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::map<const Var*, int> loads;
  std::map<const Var*, int> to_l0;
  std::map<const Var*, int> all;

  void Visit_(const Ref<ir::Call>& call) override {
    if (!call->args.empty()) {
      if (auto first = As<Var>(call->args[0])) {
        if (call->op->name == "tile.load") ++loads[first.get()];
        auto target = call->kwargs.GetEnum<MemorySpace>("target_memory");
        if (call->op->name == "tile.move" && (target == MemorySpace::Left || target == MemorySpace::Right)) {
          ++to_l0[first.get()];
        }
      }
    }
    IRVisitor::Visit_(call);
  }
  void Visit_(const Ref<Var>& var) override { ++all[var.get()]; }
  void Visit_(const Ref<ir::IterArg>& var) override { ++all[var.get()]; }
};

// A matmul operand loaded from GM into Mat inside a loop, from a tensor the
// loop never writes at a window that does not depend on the loop, is the
// same every iteration: it is loaded once before the loop instead. Only this
// pattern moves; L0 copies and everything else stay where they are.
class InvariantMatLoadHoister : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    return MutateSplicingStatements(node);
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override {
    StmtPtr visited = IRMutator::Mutate_(node);
    auto loop = As<ir::ForStmt>(visited);
    if (!loop) return visited;
    DefinedVars defined;
    defined.VisitVarDef(loop->loop_var);
    for (const auto& iter_arg : loop->iter_args) defined.VisitVarDef(iter_arg);
    defined.VisitStmt(loop->body);
    UseCounter uses;
    uses.VisitStmt(loop->body);
    std::vector<StmtPtr> hoisted;
    std::vector<StmtPtr> kept;
    for (const auto& stmt : ir::Flatten(loop->body)) {
      (Hoistable(stmt, defined.vars, uses) ? hoisted : kept).push_back(stmt);
    }
    if (hoisted.empty()) return visited;
    auto copy = std::make_shared<ir::ForStmt>(*loop);
    copy->body = ir::SeqStmts::Make(std::move(kept), loop->body->span);
    hoisted.push_back(copy);
    return ir::SeqStmts::Make(std::move(hoisted), loop->span);
  }

 private:
  static bool Hoistable(const StmtPtr& stmt, const std::set<const Var*>& defined, const UseCounter& uses) {
    auto assign = As<ir::AssignStmt>(stmt);
    auto call = assign ? As<ir::Call>(assign->value) : nullptr;
    if (!call || call->op->name != "tile.load" || call->args.empty()) return false;
    if (call->kwargs.GetEnum<MemorySpace>("target_memory") != MemorySpace::Mat) return false;
    auto tensor = As<Var>(call->args[0]);
    if (!tensor || Count(uses.all, tensor.get()) != Count(uses.loads, tensor.get())) return false;
    const Var* tile = assign->var.get();
    if (Count(uses.all, tile) == 0 || Count(uses.all, tile) != Count(uses.to_l0, tile)) return false;
    class FreeVars : public ir::IRVisitor {
     public:
      using IRVisitor::Visit_;
      std::set<const Var*> used;
      void Visit_(const Ref<Var>& var) override { used.insert(var.get()); }
      void Visit_(const Ref<ir::IterArg>& var) override { used.insert(var.get()); }
    } free_vars;
    free_vars.VisitExpr(call);
    return std::none_of(free_vars.used.begin(), free_vars.used.end(),
                        [&](const Var* v) { return defined.count(v) > 0; });
  }

  static int Count(const std::map<const Var*, int>& counts, const Var* var) {
    auto it = counts.find(var);
    return it == counts.end() ? 0 : it->second;
  }
};

ir::FunctionPtr InferFunction(const ir::FunctionPtr& function, const backend::Platform& platform) {
  DemandCollector demands;
  demands.VisitStmt(function->body);
  demands.Propagate();
  SpaceAssigner assigner(*function, demands.demands);
  assigner.AssignParams();
  assigner.VisitStmt(function->body);
  SpaceRewriter rewriter(*function, assigner.spaces, platform);
  return InvariantMatLoadHoister().VisitFunction(rewriter.VisitFunction(function));
}

}  // namespace

ir::ProgramPtr InferTileMemorySpacePass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  return ir::MapFunctions(program, [&](const ir::FunctionPtr& function) {
    return ir::IsCoreKernel(function->func_type) ? InferFunction(function, ctx.platform()) : function;
  });
}

}  // namespace pypto::passes
