#include "pipe_accesses.h"

#include <limits>
#include <string>

#include "pypto/ir/visitor.h"

namespace pypto::passes::pipe_sync {

using ir::As;
using ir::ExprPtr;
using ir::Ref;

bool Overlap(const Range& a, const Range& b) {
  if (a.global != b.global) return false;
  if (a.global) return a.tensor == b.tensor;
  return a.space == b.space && a.lo < b.hi && b.lo < a.hi;
}

bool Covers(const Range& outer, const Range& inner) {
  if (outer.global != inner.global) return false;
  if (outer.global) return outer.tensor == inner.tensor;
  return outer.space == inner.space && outer.lo <= inner.lo && inner.hi <= outer.hi;
}

namespace {

const ir::Var* AsVarPtr(const ExprPtr& e) {
  auto var = e ? As<ir::Var>(e) : nullptr;
  return var ? var.get() : nullptr;
}

bool IsTensor(const ExprPtr& e) {
  return e && (ir::IsA<ir::TensorType>(e->type) || ir::IsA<ir::DistributedTensorType>(e->type));
}

class RootCollector : public ir::IRVisitor {
 public:
  explicit RootCollector(std::map<const ir::Var*, const ir::Var*>& parent) : parent_(parent) {}

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    if (IsTensor(stmt->var)) Link(stmt->var.get(), TensorSource(stmt->value));
    ir::IRVisitor::Visit_(stmt);
  }
  void Visit_(const Ref<ir::ForStmt>& stmt) override {
    LinkCarried(stmt->iter_args, stmt->return_vars);
    ir::IRVisitor::Visit_(stmt);
  }
  void Visit_(const Ref<ir::WhileStmt>& stmt) override {
    LinkCarried(stmt->iter_args, stmt->return_vars);
    ir::IRVisitor::Visit_(stmt);
  }
  void Visit_(const Ref<ir::IfStmt>& stmt) override {
    auto yield = As<ir::YieldStmt>(ir::Flatten(stmt->then_body).empty() ? nullptr
                                                                        : ir::Flatten(stmt->then_body).back());
    for (size_t i = 0; yield && i < stmt->return_vars.size() && i < yield->values.size(); ++i) {
      if (IsTensor(stmt->return_vars[i])) Link(stmt->return_vars[i].get(), AsVarPtr(yield->values[i]));
    }
    ir::IRVisitor::Visit_(stmt);
  }

 private:
  // The tensor a tensor-valued expression names: a variable, or the destination an op returns.
  static const ir::Var* TensorSource(const ExprPtr& value) {
    if (const ir::Var* var = AsVarPtr(value)) return var;
    auto call = As<ir::Call>(value);
    if (!call || call->is_function_call()) return nullptr;
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op->name);
    auto reused = def ? def->output_reuses_input() : std::nullopt;
    if (reused && static_cast<size_t>(*reused) < call->args.size()) return AsVarPtr(call->args[*reused]);
    return nullptr;
  }
  void Link(const ir::Var* var, const ir::Var* source) {
    if (source != nullptr && source != var) parent_[var] = source;
  }
  void LinkCarried(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<ir::VarPtr>& return_vars) {
    for (size_t i = 0; i < iter_args.size(); ++i) {
      if (!IsTensor(iter_args[i])) continue;
      Link(iter_args[i].get(), AsVarPtr(iter_args[i]->init_value));
      if (i < return_vars.size()) Link(return_vars[i].get(), iter_args[i].get());
    }
  }

  std::map<const ir::Var*, const ir::Var*>& parent_;
};

// The buffer bytes of a tile value; the whole space when it has no planned address.
std::optional<Range> TileRange(const ExprPtr& e, bool write) {
  auto type = e ? As<ir::TileType>(e->type) : nullptr;
  if (!type) return std::nullopt;
  Range r;
  r.write = write;
  const ir::MemRefPtr& memref = type->memref;
  r.space = static_cast<int>(memref ? memref->memory_space : type->memory_space.value_or(ir::MemorySpace::Vec));
  auto offset = memref ? ir::AsConstInt(memref->byte_offset) : std::nullopt;
  if (!offset) {
    r.lo = 0;
    r.hi = std::numeric_limits<int64_t>::max();
    return r;
  }
  r.lo = *offset;
  r.hi = *offset + memref->size;
  return r;
}

void AddEffect(std::vector<Range>& out, Range r, ops::ArgEffect effect) {
  if (effect != ops::ArgEffect::kWrite) {
    r.write = false;
    out.push_back(r);
  }
  if (effect != ops::ArgEffect::kRead) {
    r.write = true;
    out.push_back(r);
  }
}

Instruction InstructionOf(const ir::Call& call, const ir::VarPtr& result, const ops::OpDef& def, int pipe,
                          const TensorRoots& roots) {
  Instruction ins;
  ins.pipe = pipe;
  for (size_t i = 0; i < call.args.size(); ++i) {
    const ExprPtr& arg = call.args[i];
    ops::ArgEffect effect = def.arg_effect(static_cast<int>(i), call.kwargs);
    if (auto tile = TileRange(arg, false)) {
      AddEffect(ins.ranges, *tile, effect);
    } else if (IsTensor(arg)) {
      Range g;
      g.global = true;
      g.tensor = roots.RootOf(arg);
      AddEffect(ins.ranges, g, effect);
    }
  }
  if (result) {
    if (auto tile = TileRange(result, true)) ins.ranges.push_back(*tile);
  }
  return ins;
}

}  // namespace

TensorRoots::TensorRoots(const ir::Function& kernel) {
  RootCollector collector(parent_);
  if (kernel.body) collector.VisitStmt(kernel.body);
}

const ir::Var* TensorRoots::RootOf(const ExprPtr& tensor) const {
  const ir::Var* var = AsVarPtr(tensor);
  for (int hops = 0; var != nullptr && hops < 1000; ++hops) {
    auto it = parent_.find(var);
    if (it == parent_.end()) break;
    var = it->second;
  }
  return var;
}

StatementAccess AccessOf(const ir::StmtPtr& stmt, const TensorRoots& roots) {
  ExprPtr value;
  ir::VarPtr result;
  if (auto assign = As<ir::AssignStmt>(stmt)) {
    value = assign->value;
    result = assign->var;
  } else if (auto eval = As<ir::EvalStmt>(stmt)) {
    value = eval->expr;
  }
  auto call = value ? As<ir::Call>(value) : nullptr;
  if (!call || call->is_function_call()) return {};
  const std::string& name = call->op->name;
  if (name == "system.sync_src" || name == "system.sync_dst") return {StatementKind::kUserEvent, {}};
  if (name == "system.bar_all") return {StatementKind::kBarrierAll, {}};
  if (name == "system.bar_v") return {StatementKind::kBarrierV, {}};
  if (name == "system.bar_m") return {StatementKind::kBarrierOther, {}};
  const ops::OpDef* def = ops::OpRegistry::Global().Find(name);
  if (def == nullptr || !def->declares_pipe()) return {StatementKind::kUnknownPipe, {}};
  std::optional<ops::PipeType> pipe = def->pipe(*call);
  if (!pipe) return {};
  return {StatementKind::kInstruction, InstructionOf(*call, result, *def, static_cast<int>(*pipe), roots)};
}

}  // namespace pypto::passes::pipe_sync
