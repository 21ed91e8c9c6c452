#include "side_builder.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes::mixed {

using ir::As;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

class UseCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::unordered_set<const ir::Var*> uses;
  void Visit_(const Ref<ir::Var>& var) override { uses.insert(var.get()); }
  void Visit_(const Ref<ir::IterArg>& var) override { uses.insert(var.get()); }
};

std::unordered_set<const ir::Var*> UsesOf(const StmtPtr& stmt) {
  UseCollector collector;
  collector.VisitStmt(stmt);
  return collector.uses;
}

// Leaf statements keep their variables; only uses are renamed.
class Renamer : public ir::IRMutator {
 public:
  using IRMutator::Remap;
  using IRMutator::Remapped;
};

const char* CoreName(Core core) { return core == Core::kCube ? "cube" : "vector"; }

ExprPtr ShapeList(const ir::TileType& tile, const Span& span) {
  std::vector<ExprPtr> dims;
  for (const auto& d : tile.shape) dims.push_back(ir::ConstInt::Make(*ir::AsConstInt(d), ir::DataType::INDEX, span));
  return ir::MakeTuple::Make(std::move(dims), span);
}

struct Pop {
  VarPtr var;       // the popped tile (what the free takes)
  size_t index;     // its statement in the block
};

struct Block {
  std::vector<StmtPtr> stmts;
  int max_held = 0;  // popped tiles held at once, nested blocks included
};

class SideBuilder {
 public:
  SideBuilder(const ir::Function& function, const Classification& classification, Core core,
              const PipeSetup& pipe, std::string kernel_name)
      : function_(function),
        classification_(classification),
        core_(core),
        pipe_(pipe),
        kernel_name_(std::move(kernel_name)) {}

  StmtPtr Build() {
    Block block = Emit(function_.body, nullptr);
    RequireSlots(block.max_held);
    std::vector<StmtPtr> stmts;
    if (pipe_.dir_mask != 0) stmts.push_back(PipeInit());  // a vector-only split kernel has no pipe
    stmts.insert(stmts.end(), block.stmts.begin(), block.stmts.end());
    stmts.push_back(ir::ReturnStmt::Make({}, function_.span));
    return ir::SeqStmts::Make(std::move(stmts), function_.span);
  }

 private:
  // ---------------------------------------------------------------- blocks

  Block Emit(const StmtPtr& body, const std::vector<bool>* yield_mask) {
    Block block;
    std::vector<Pop> pops;
    std::unordered_map<const ir::Stmt*, int> nested_held;
    for (const auto& stmt : Inlined(body)) {
      if (ir::IsA<ir::ReturnStmt>(stmt)) continue;
      if (auto yield = As<ir::YieldStmt>(stmt)) {
        StmtPtr kept = Yield(*yield, yield_mask);
        if (!As<ir::YieldStmt>(kept)->values.empty()) block.stmts.push_back(kept);
      } else if (auto loop = As<ir::ForStmt>(stmt)) {
        Nested(For(loop), block, nested_held);
      } else if (auto loop = As<ir::WhileStmt>(stmt)) {
        Nested(While(loop), block, nested_held);
      } else if (auto branch = As<ir::IfStmt>(stmt)) {
        Nested(If(branch), block, nested_held);
      } else {
        Leaf(stmt, block, pops);
      }
    }
    PlaceFrees(block, pops, nested_held);
    return block;
  }

  // The statements of a block, with those of pl.split_aiv regions in place
  // of the region: each statement already knows its core.
  static std::vector<StmtPtr> Inlined(const StmtPtr& body) {
    std::vector<StmtPtr> stmts;
    for (const auto& stmt : ir::Flatten(body)) {
      auto region = As<ir::ScopeStmt>(stmt);
      if (!region || region->scope_kind != ir::ScopeKind::SplitAiv) {
        stmts.push_back(stmt);
        continue;
      }
      for (const auto& inner : Inlined(region->body)) stmts.push_back(inner);
    }
    return stmts;
  }

  static void Nested(std::pair<StmtPtr, int> nested, Block& block,
                     std::unordered_map<const ir::Stmt*, int>& nested_held) {
    if (!nested.first) return;
    nested_held[nested.first.get()] = nested.second;
    block.stmts.push_back(nested.first);
  }

  // Each pop is freed after its last use in the block, and no earlier than
  // the pop before it: the ring frees slots in pop order.
  void PlaceFrees(Block& block, const std::vector<Pop>& pops,
                  const std::unordered_map<const ir::Stmt*, int>& nested_held) {
    std::vector<size_t> free_after(pops.size());
    for (size_t i = 0; i < pops.size(); ++i) {
      size_t last = pops[i].index;
      for (size_t j = pops[i].index + 1; j < block.stmts.size(); ++j) {
        if (UsesOf(block.stmts[j]).count(pops[i].var.get())) last = j;
      }
      if (ir::IsA<ir::YieldStmt>(block.stmts[last])) RejectCarriedPop(pops[i]);
      free_after[i] = i > 0 ? std::max(last, free_after[i - 1]) : last;
    }
    std::vector<StmtPtr> stmts;
    size_t next_pop = 0;
    size_t next_free = 0;
    int held = 0;
    for (size_t j = 0; j < block.stmts.size(); ++j) {
      stmts.push_back(block.stmts[j]);
      if (next_pop < pops.size() && pops[next_pop].index == j) ++held, ++next_pop;
      auto nested = nested_held.find(block.stmts[j].get());
      block.max_held = std::max(block.max_held, held + (nested == nested_held.end() ? 0 : nested->second));
      for (; next_free < pops.size() && free_after[next_free] == j; ++next_free, --held) {
        stmts.push_back(Free(pops[next_free]));
      }
    }
    block.stmts = std::move(stmts);
  }

  // ---------------------------------------------------------------- leaves

  void Leaf(const StmtPtr& stmt, Block& block, std::vector<Pop>& pops) {
    auto it = classification_.leaves.find(stmt.get());
    Placement placement = it == classification_.leaves.end() ? Placement::kShared : it->second;
    switch (placement) {
      case Placement::kShared:
        Keep(stmt, block);
        return;
      case Placement::kCube:
      case Placement::kVector:
        if ((placement == Placement::kCube) == (core_ == Core::kCube)) {
          Keep(stmt, block);
        } else {
          Drop(stmt);
        }
        return;
      case Placement::kCubeToVector:
      case Placement::kVectorToCube:
        Cross(*stmt, placement, block, pops);
        return;
    }
  }

  void Keep(const StmtPtr& stmt, Block& block) {
    RequireAvailable(stmt, stmt->span);
    block.stmts.push_back(renamer_.VisitStmt(stmt));
  }

  // The other core's statement. An in-place write of a tensor leaves this
  // core's view of the tensor as it was: later uses read the written-to one.
  void Drop(const StmtPtr& stmt) {
    auto assign = As<ir::AssignStmt>(stmt);
    if (!assign) return;
    if (auto source = InPlaceSource(*assign)) {
      renamer_.Remap(assign->var, renamer_.Remapped(source));
      return;
    }
    unavailable_.emplace(assign->var.get(), stmt->span);
  }

  static VarPtr InPlaceSource(const ir::AssignStmt& assign) {
    auto call = As<ir::Call>(assign.value);
    if (!call || call->is_function_call() || !ir::IsA<ir::TensorType>(assign.var->type)) return nullptr;
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op->name);
    if (!def || !def->output_reuses_input()) return nullptr;
    auto index = static_cast<size_t>(*def->output_reuses_input());
    return index < call->args.size() ? As<ir::Var>(call->args[index]) : nullptr;
  }

  void Cross(const ir::Stmt& stmt, Placement direction, Block& block, std::vector<Pop>& pops) {
    const Crossing& crossing = FindCrossing(stmt);
    bool to_vector = direction == Placement::kCubeToVector;
    bool producer = to_vector == (core_ == Core::kCube);
    if (producer) {
      RequireAvailable(ExprPtr(crossing.source), stmt.span);
      auto push = Op(to_vector ? "tile.tpush_to_aiv" : "tile.tpush_to_aic", {renamer_.Remapped(crossing.source)},
                     {{"split", pipe_.split}}, stmt.span);
      block.stmts.push_back(ir::EvalStmt::Make(push, stmt.span));
      return;
    }
    auto target = As<ir::TileType>(crossing.target->type);
    auto pop_call = Op(to_vector ? "tile.tpop_from_aic" : "tile.tpop_from_aiv", {ShapeList(*target, stmt.span)},
                       {{"dtype", target->dtype}, {"split", pipe_.split}}, stmt.span);
    bool lands_in_place = As<ir::TileType>(pop_call->type)->memory_space == target->memory_space;
    auto popped = ir::Var::Make(crossing.target->name_hint + (lands_in_place ? "" : "_pop"), pop_call->type,
                                crossing.target->span);
    pops.push_back({popped, block.stmts.size()});
    block.stmts.push_back(ir::AssignStmt::Make(popped, pop_call, stmt.span));
    if (lands_in_place) {
      renamer_.Remap(crossing.target, popped);
      return;
    }
    // A tile for Left or Right arrives in Mat, the pipe's end on the cube core.
    auto move = Op("tile.move", {popped}, {{"target_memory", ir::EnumAttr::Of(*target->memory_space)}}, stmt.span);
    auto moved = ir::Var::Make(crossing.target->name_hint, move->type, crossing.target->span);
    block.stmts.push_back(ir::AssignStmt::Make(moved, move, stmt.span));
    renamer_.Remap(crossing.target, moved);
  }

  const Crossing& FindCrossing(const ir::Stmt& stmt) const {
    for (const auto& crossing : classification_.crossings) {
      if (crossing.stmt == &stmt) return crossing;
    }
    ThrowInternalError("ExpandMixedKernel: a crossing statement without its record");
  }

  StmtPtr Free(const Pop& pop) const {
    const char* op = core_ == Core::kVector ? "system.tfree_to_aic" : "system.tfree_to_aiv";
    return ir::EvalStmt::Make(Op(op, {pop.var}, {}, pop.var->span), pop.var->span);
  }

  StmtPtr PipeInit() const {
    const char* op = core_ == Core::kCube ? "system.aic_initialize_pipe" : "system.aiv_initialize_pipe";
    auto init = Op(op, {},
                   {{"dir_mask", pipe_.dir_mask}, {"slot_size", pipe_.slot_size}, {"slot_num", pipe_.slot_num}},
                   function_.span);
    return ir::EvalStmt::Make(init, function_.span);
  }

  static ir::CallPtr Op(const std::string& name, std::vector<ExprPtr> args, ir::Attrs kwargs, const Span& span) {
    return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs), span);
  }

  // ---------------------------------------------------------------- control flow

  // Keeps the loop state this core has: a tile of the other core is dropped.
  std::vector<bool> KeptMask(const std::vector<VarPtr>& vars) const {
    std::vector<bool> kept;
    Home other = core_ == Core::kCube ? Home::kVector : Home::kCube;
    for (const auto& var : vars) kept.push_back(classification_.HomeOf(var.get()) != other);
    return kept;
  }

  template <class Args>
  std::vector<ir::IterArgPtr> KeptIterArgs(const Args& iter_args, const std::vector<bool>& kept, const Span& span) {
    std::vector<ir::IterArgPtr> result;
    for (size_t i = 0; i < iter_args.size(); ++i) {
      const auto& arg = iter_args[i];
      if (!kept[i]) {
        unavailable_.emplace(arg.get(), span);
        continue;
      }
      RequireAvailable(arg->init_value, span);
      auto rebuilt = ir::IterArg::Make(arg->name_hint, arg->type, renamer_.VisitExpr(arg->init_value), arg->span);
      renamer_.Remap(arg, rebuilt);
      result.push_back(rebuilt);
    }
    return result;
  }

  std::vector<VarPtr> KeptReturnVars(const std::vector<VarPtr>& vars, const std::vector<bool>& kept, const Span& span) {
    std::vector<VarPtr> result;
    for (size_t i = 0; i < vars.size(); ++i) {
      if (kept[i]) {
        result.push_back(vars[i]);
      } else {
        unavailable_.emplace(vars[i].get(), span);
      }
    }
    return result;
  }

  static std::vector<VarPtr> AsVars(const std::vector<ir::IterArgPtr>& args) {
    return std::vector<VarPtr>(args.begin(), args.end());
  }

  std::pair<StmtPtr, int> For(const Ref<ir::ForStmt>& loop) {
    std::vector<bool> kept = KeptMask(AsVars(loop->iter_args));
    RequireAvailable(loop->start, loop->span);
    RequireAvailable(loop->stop, loop->span);
    RequireAvailable(loop->step, loop->span);
    auto iter_args = KeptIterArgs(loop->iter_args, kept, loop->span);
    Block body = Emit(loop->body, &kept);
    std::vector<VarPtr> return_vars = KeptReturnVars(loop->return_vars, kept, loop->span);
    if (DropIdleLoop(body, iter_args, return_vars)) return {nullptr, 0};
    auto rebuilt = ir::ForStmt::Make(loop->loop_var, renamer_.VisitExpr(loop->start), renamer_.VisitExpr(loop->stop),
                                     renamer_.VisitExpr(loop->step), iter_args, ir::MakeSeq(body.stmts, loop->span),
                                     return_vars, loop->for_kind, loop->attrs, loop->span);
    return {rebuilt, body.max_held};
  }

  // A loop that does nothing on this core but pass its state through (the
  // other core's loop) disappears; its results are its inputs.
  bool DropIdleLoop(const Block& body, const std::vector<ir::IterArgPtr>& iter_args,
                    const std::vector<VarPtr>& return_vars) {
    if (body.stmts.empty()) return iter_args.empty();
    if (body.stmts.size() != 1) return false;
    auto yield = As<ir::YieldStmt>(body.stmts[0]);
    if (!yield) return false;
    for (size_t i = 0; i < iter_args.size(); ++i) {
      if (yield->values[i].get() != iter_args[i].get() || !ir::IsA<ir::Var>(iter_args[i]->init_value)) return false;
    }
    for (size_t i = 0; i < iter_args.size(); ++i) renamer_.Remap(return_vars[i], As<ir::Var>(iter_args[i]->init_value));
    return true;
  }

  std::pair<StmtPtr, int> While(const Ref<ir::WhileStmt>& loop) {
    std::vector<bool> kept = KeptMask(AsVars(loop->iter_args));
    auto iter_args = KeptIterArgs(loop->iter_args, kept, loop->span);
    RequireAvailable(loop->condition, loop->span);
    ExprPtr condition = renamer_.VisitExpr(loop->condition);
    Block body = Emit(loop->body, &kept);
    std::vector<VarPtr> return_vars = KeptReturnVars(loop->return_vars, kept, loop->span);
    return {ir::WhileStmt::Make(condition, iter_args, ir::MakeSeq(body.stmts, loop->span), return_vars, loop->span),
            body.max_held};
  }

  std::pair<StmtPtr, int> If(const Ref<ir::IfStmt>& branch) {
    std::vector<bool> kept = KeptMask(branch->return_vars);
    RequireAvailable(branch->condition, branch->span);
    ExprPtr condition = renamer_.VisitExpr(branch->condition);
    Block then_body = Emit(branch->then_body, &kept);
    Block else_body = branch->else_body ? Emit(branch->else_body, &kept) : Block{};
    std::vector<VarPtr> return_vars = KeptReturnVars(branch->return_vars, kept, branch->span);
    if (then_body.stmts.empty() && else_body.stmts.empty() && return_vars.empty()) return {nullptr, 0};
    StmtPtr else_stmt = branch->else_body ? ir::MakeSeq(else_body.stmts, branch->span) : nullptr;
    return {ir::IfStmt::Make(condition, ir::MakeSeq(then_body.stmts, branch->span), else_stmt, return_vars,
                             branch->span),
            std::max(then_body.max_held, else_body.max_held)};
  }

  StmtPtr Yield(const ir::YieldStmt& yield, const std::vector<bool>* mask) {
    std::vector<ExprPtr> values;
    for (size_t i = 0; i < yield.values.size(); ++i) {
      if (mask && i < mask->size() && !(*mask)[i]) continue;
      RequireAvailable(yield.values[i], yield.span);
      values.push_back(renamer_.VisitExpr(yield.values[i]));
    }
    return ir::YieldStmt::Make(std::move(values), yield.span);
  }

  // ---------------------------------------------------------------- errors

  void RequireAvailable(const StmtPtr& stmt, const Span& span) const { RequireAvailable(UsesOf(stmt), span); }

  void RequireAvailable(const ExprPtr& expr, const Span& span) const {
    if (!expr) return;
    UseCollector collector;
    collector.VisitExpr(expr);
    RequireAvailable(collector.uses, span);
  }

  void RequireAvailable(const std::unordered_set<const ir::Var*>& uses, const Span& span) const {
    for (const ir::Var* var : uses) {
      auto it = unavailable_.find(var);
      if (it == unavailable_.end()) continue;
      Core other = core_ == Core::kCube ? Core::kVector : Core::kCube;
      throw Error(ErrorKind::kValue,
                  "ExpandMixedKernel: in function '" + function_.name + "', the " + CoreName(core_) +
                      " core's code at " + span.ToString() + " uses '" + var->name_hint + "', which only the " +
                      CoreName(other) + " core computes (at " + it->second.ToString() +
                      "); the cores exchange only tiles, through tile.move between Acc and Vec or Vec and Mat: "
                      "compute '" + var->name_hint + "' from values both cores have (parameters, loop indices, "
                      "scalar arithmetic on them), or move the tile it comes from to this core",
                  span.known() ? span : it->second);
    }
  }

  void RejectCarriedPop(const Pop& pop) const {
    throw Error(ErrorKind::kValue,
                "ExpandMixedKernel: in function '" + function_.name + "', the tile '" + pop.var->name_hint +
                    "' that crosses to the " + CoreName(core_) + " core at " + pop.var->span.ToString() +
                    " is carried out of its loop or if; a popped tile keeps its pipe slot until it is freed, so it "
                    "must be used up where it arrives: move it into a tile of this core (tile.move or an op) "
                    "before the yield",
                pop.var->span);
  }

  void RequireSlots(int held) const {
    if (held <= pipe_.slot_num) return;
    const char* producer = core_ == Core::kVector ? "AIC" : "AIV";
    throw Error(ErrorKind::kValue,
                "ExpandMixedKernel: in function '" + function_.name + "', kernel '" + kernel_name_ + "' holds " +
                    std::to_string(held) + " tiles popped from the " + producer +
                    " at once (each keeps its pipe slot until its last use), but its ring has slot_num=" +
                    std::to_string(pipe_.slot_num) + " slots per lane, so the " + producer +
                    " would wait for a slot that is never freed: raise pl.cross_core_slot(slot_num=" +
                    std::to_string(held) + ") in the pl.at optimizations, or use each tile before the next one "
                    "crosses",
                function_.span);
  }

  const ir::Function& function_;
  const Classification& classification_;
  Core core_;
  PipeSetup pipe_;
  std::string kernel_name_;
  Renamer renamer_;
  std::unordered_map<const ir::Var*, Span> unavailable_;  // defined only on the other core, and where
};

}  // namespace

StmtPtr BuildSide(const ir::Function& function, const Classification& classification, Core core,
                  const PipeSetup& pipe, const std::string& kernel_name) {
  return SideBuilder(function, classification, core, pipe, kernel_name).Build();
}

}  // namespace pypto::passes::mixed
