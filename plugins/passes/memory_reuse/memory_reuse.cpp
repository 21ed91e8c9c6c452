#include "memory_reuse.h"

#include <algorithm>
#include <map>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/structural.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::MemRefPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

// When one buffer is in use, in statement positions of the function. A
// buffer is one allocation: the MemRef of the whole buffer and those of the
// tile.slice views inside it, which live and move with it.
struct Lifetime {
  MemRefPtr memref;               // the first MemRef seen: the whole buffer
  std::vector<MemRefPtr> views;   // the others, at their offsets inside it
  int64_t size = 0;               // bytes the buffer spans
  int64_t start = -1;  // the first definition of a tile in the buffer
  int64_t end = -1;    // the last use, stretched to the end of loops that use it from outside
  bool defined_not_inplace_safe = false;  // the op of the first definition must not write over its inputs
  // Inputs of the first definition it must not write over even so: those of
  // another shape, which the op reads past the element it writes (the [1, N]
  // row of a col_expand_add, the [M, N] source of a row_sum).
  std::vector<const void*> unsafe_inputs;
  const void* key = nullptr;
};

// The allocation a MemRef belongs to: its base, or the MemRef itself before
// it has one.
const void* BufferKey(const MemRefPtr& memref) {
  return memref->base ? static_cast<const void*>(memref->base.get()) : memref.get();
}

// Numbers the statements in program order and records, per buffer, its first
// definition and last use. A loop takes one position where its iter_args are
// bound and one after its body where its return vars are bound.
class LifetimeCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  std::map<const void*, Lifetime> lifetimes;  // by BufferKey
  std::vector<const void*> order;             // buffers by first definition

  void VisitFunction(const FunctionPtr& function) override {
    for (const auto& param : function->params) Define(param, nullptr);
    ++position_;
    if (function->body) VisitStmt(function->body);
  }

  void VisitStmt(const StmtPtr& stmt) override {
    if (As<ir::SeqStmts>(stmt) || As<ir::ForStmt>(stmt) || As<ir::WhileStmt>(stmt) || As<ir::IfStmt>(stmt)) {
      IRVisitor::VisitStmt(stmt);
      return;
    }
    IRVisitor::VisitStmt(stmt);
    ++position_;
  }

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    VisitExpr(stmt->value);
    Define(stmt->var, As<ir::Call>(stmt->value));
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    VisitExpr(loop->start);
    VisitExpr(loop->stop);
    VisitExpr(loop->step);
    // LowerPipelineLoops' copies of a pl.pipeline body must keep apart buffers
    // (ping-pong): what the body defines lives until the body ends.
    const bool pipelined = loop->attrs.Get<int64_t>("pipeline_stages").value_or(1) > 1;
    VisitLoop(loop->iter_args, loop->body, loop->return_vars, nullptr, pipelined);
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    VisitLoop(loop->iter_args, loop->body, loop->return_vars, loop->condition, false);
  }

  void Visit_(const Ref<ir::IfStmt>& stmt) override {
    VisitExpr(stmt->condition);
    ++position_;
    VisitStmt(stmt->then_body);
    if (stmt->else_body) VisitStmt(stmt->else_body);
    for (const auto& var : stmt->return_vars) Define(var, nullptr);
    ++position_;
  }

  void Visit_(const Ref<ir::Var>& var) override { Use(var); }
  void Visit_(const Ref<ir::IterArg>& var) override { Use(var); }

 private:
  struct Loop {
    int64_t start;
    bool pipelined = false;
    int64_t end = -1;  // known once the body is numbered
  };

  void VisitLoop(const std::vector<ir::IterArgPtr>& iter_args, const StmtPtr& body,
                 const std::vector<VarPtr>& return_vars, const ExprPtr& condition, bool pipelined) {
    for (const auto& iter_arg : iter_args) {
      if (iter_arg->init_value) VisitExpr(iter_arg->init_value);
    }
    loops_.push_back(std::make_shared<Loop>(Loop{position_, pipelined}));
    for (const auto& iter_arg : iter_args) Define(iter_arg, nullptr);
    if (condition) VisitExpr(condition);
    ++position_;
    VisitStmt(body);
    loops_.back()->end = position_;
    StretchUsesFromOutside(loops_.back());
    loops_.pop_back();
    for (const auto& var : return_vars) Define(var, nullptr);
    ++position_;
  }

  void Define(const VarPtr& var, const Ref<ir::Call>& call) {
    def_depth_[var.get()] = loops_.size();
    MemRefPtr memref = ir::MemRefOf(var);
    if (!memref) return;
    auto [it, inserted] = lifetimes.emplace(BufferKey(memref), Lifetime{memref, {}, memref->size, position_, position_, false, {}, nullptr});
    Lifetime& lifetime = it->second;
    if (inserted) {
      order.push_back(BufferKey(memref));
      lifetime.key = BufferKey(memref);
      lifetime.defined_not_inplace_safe = NotInplaceSafe(call);
      lifetime.unsafe_inputs = ReshapedInputs(call, var);
    } else if (memref != lifetime.memref &&
               std::find(lifetime.views.begin(), lifetime.views.end(), memref) == lifetime.views.end()) {
      lifetime.views.push_back(memref);
      auto offset = ir::AsConstInt(memref->byte_offset);
      auto start = ir::AsConstInt(lifetime.memref->byte_offset);
      if (offset && start) lifetime.size = std::max(lifetime.size, *offset - *start + memref->size);
    }
    lifetime.end = std::max(lifetime.end, position_);
    for (const auto& loop : loops_) {
      if (loop->pipelined) pending_[loop.get()].push_back(BufferKey(memref));
    }
  }

  // A value defined outside a loop and read inside it is read again by every
  // iteration, so it lives until the loop ends.
  void Use(const VarPtr& var) {
    MemRefPtr memref = ir::MemRefOf(var);
    if (!memref) return;
    auto it = lifetimes.find(BufferKey(memref));
    if (it == lifetimes.end()) return;
    it->second.end = std::max(it->second.end, position_);
    auto depth = def_depth_.find(var.get());
    size_t defined_at = depth == def_depth_.end() ? 0 : depth->second;
    for (size_t i = defined_at; i < loops_.size(); ++i) pending_[loops_[i].get()].push_back(BufferKey(memref));
  }

  void StretchUsesFromOutside(const std::shared_ptr<Loop>& loop) {
    for (const void* buffer : pending_[loop.get()]) {
      auto& lifetime = lifetimes.at(buffer);
      lifetime.end = std::max(lifetime.end, loop->end);
    }
    pending_.erase(loop.get());
  }

  static bool SameShape(const std::vector<ir::ExprPtr>& a, const std::vector<ir::ExprPtr>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ir::StructuralEqual(a[i], b[i])) return false;
    }
    return true;
  }

  static std::vector<const void*> ReshapedInputs(const Ref<ir::Call>& call, const VarPtr& result) {
    std::vector<const void*> inputs;
    auto result_tile = As<ir::TileType>(result->type);
    if (!call || !result_tile) return inputs;
    for (const auto& arg : call->args) {
      auto input = As<ir::Var>(arg);
      auto input_tile = input ? As<ir::TileType>(input->type) : nullptr;
      MemRefPtr memref = input ? ir::MemRefOf(input) : nullptr;
      if (!input_tile || !memref) continue;
      if (!SameShape(input_tile->shape, result_tile->shape)) inputs.push_back(BufferKey(memref));
    }
    return inputs;
  }

  static bool NotInplaceSafe(const Ref<ir::Call>& call) {
    if (!call || call->is_function_call()) return false;
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call->callee_name());
    return def && def->not_inplace_safe();
  }

  int64_t position_ = 0;
  std::vector<std::shared_ptr<Loop>> loops_;
  std::unordered_map<const ir::Var*, size_t> def_depth_;  // loops around each definition
  std::unordered_map<const Loop*, std::vector<const void*>> pending_;
};

// `later` may take the storage of `earlier` when `earlier` is dead before
// `later` is written, or is last read by the very op that writes `later` and
// that op may write over its inputs.
bool CanFollow(const Lifetime& earlier, const Lifetime& later) {
  if (earlier.end < later.start) return true;
  if (earlier.end != later.start || later.defined_not_inplace_safe) return false;
  return std::find(later.unsafe_inputs.begin(), later.unsafe_inputs.end(), earlier.key) == later.unsafe_inputs.end();
}

bool Disjoint(const Lifetime& a, const Lifetime& b) { return CanFollow(a, b) || CanFollow(b, a); }

// One storage area: the buffers packed into it; the first is the largest and names it.
struct Slot {
  std::vector<const Lifetime*> members;
};

// `view` of a buffer moved onto the buffer `kept`: same place inside it.
MemRefPtr Rebased(const MemRefPtr& view, const Lifetime& from, const MemRefPtr& kept, size_t index) {
  auto offset = ir::AsConstInt(view->byte_offset);
  int64_t shift = ir::AsConstInt(kept->byte_offset).value_or(0) - ir::AsConstInt(from.memref->byte_offset).value_or(0);
  ExprPtr moved = view->byte_offset;
  if (offset) {
    moved = ir::Int(*offset + shift);
  } else if (shift != 0) {
    moved = ir::BinaryExpr::Make(ir::BinaryOp::Add, ir::Int(shift), view->byte_offset);
  }
  return ir::MemRef::Make(kept->name_hint + "_view" + std::to_string(index), view->memory_space, kept->base, moved,
                          view->size, view->span);
}

// First-fit-decreasing: the largest buffers pick first; each joins the first
// slot of its space whose buffers it overlaps with none of. A buffer that
// joins a slot takes its MemRef; its views move onto the slot's base.
std::unordered_map<const ir::MemRef*, MemRefPtr> PackBuffers(const LifetimeCollector& collector) {
  std::vector<const Lifetime*> by_size;
  for (const void* buffer : collector.order) by_size.push_back(&collector.lifetimes.at(buffer));
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const Lifetime* a, const Lifetime* b) { return a->size > b->size; });
  std::map<ir::MemorySpace, std::vector<Slot>> slots;
  std::unordered_map<const ir::MemRef*, MemRefPtr> replacement;
  std::unordered_map<const Lifetime*, size_t> views_per_slot;
  for (const Lifetime* buffer : by_size) {
    auto& space_slots = slots[buffer->memref->memory_space];
    auto fits = [&](const Slot& slot) {
      return std::all_of(slot.members.begin(), slot.members.end(),
                         [&](const Lifetime* member) { return Disjoint(*member, *buffer); });
    };
    auto slot = std::find_if(space_slots.begin(), space_slots.end(), fits);
    if (slot == space_slots.end()) {
      space_slots.push_back(Slot{{buffer}});
      continue;
    }
    slot->members.push_back(buffer);
    const Lifetime* leader = slot->members.front();
    replacement[buffer->memref.get()] = leader->memref;
    for (const auto& view : buffer->views) {
      size_t index = leader->views.size() + views_per_slot[leader]++;
      replacement[view.get()] = Rebased(view, *buffer, leader->memref, index);
    }
  }
  return replacement;
}

// Points every tile of a merged buffer at the buffer it joined and drops the
// tile.alloc statements whose buffers are gone.
class BufferMerger : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  BufferMerger(std::unordered_map<const ir::MemRef*, MemRefPtr> replacement,
               std::unordered_set<const ir::Var*> dropped_bases)
      : replacement_(std::move(replacement)), dropped_bases_(std::move(dropped_bases)) {}

  VarPtr VisitVarDef(const VarPtr& var) override {
    MemRefPtr memref = ir::MemRefOf(var);
    auto it = memref ? replacement_.find(memref.get()) : replacement_.end();
    if (it == replacement_.end()) return IRMutator::VisitVarDef(var);
    auto type = std::make_shared<ir::TileType>(*As<ir::TileType>(var->type));
    type->memref = it->second;
    VarPtr rebuilt;
    if (auto iter_arg = As<ir::IterArg>(var)) {
      ExprPtr init = iter_arg->init_value ? VisitExpr(iter_arg->init_value) : nullptr;
      rebuilt = ir::IterArg::Make(var->name_hint, type, init, var->span);
    } else {
      rebuilt = ir::Var::Make(var->name_hint, type, var->span);
    }
    Remap(var, rebuilt);
    return rebuilt;
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    for (const auto& stmt : node->stmts) {
      auto assign = As<ir::AssignStmt>(stmt);
      if (assign && dropped_bases_.count(assign->var.get())) continue;
      stmts.push_back(VisitStmt(stmt));
    }
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

 private:
  std::unordered_map<const ir::MemRef*, MemRefPtr> replacement_;
  std::unordered_set<const ir::Var*> dropped_bases_;
};

FunctionPtr ReuseBuffers(const FunctionPtr& function) {
  LifetimeCollector collector;
  collector.VisitFunction(function);
  auto replacement = PackBuffers(collector);
  if (replacement.empty()) return function;
  std::unordered_set<const ir::Var*> dropped_bases;
  for (const auto& [memref, kept] : replacement) {
    if (memref->base && memref->base != kept->base) dropped_bases.insert(memref->base.get());
  }
  return BufferMerger(std::move(replacement), std::move(dropped_bases)).VisitFunction(function);
}

}  // namespace

ir::ProgramPtr MemoryReusePass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    functions.push_back(ir::IsCoreKernel(function->func_type) ? ReuseBuffers(function) : function);
    changed |= functions.back() != function;
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
