#include "insert_comm_fence.h"

#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;

namespace {

constexpr const char* kFenceOp = "system.fence";

// Ops that order their own window traffic. A notify is the release the
// fences before it exist for; a collective waits for its peers and fences its
// transfers itself. Every other op that writes a window gets a fence, so a
// new comm op is fenced until someone decides it need not be.
bool SynchronizesItself(const std::string& op) {
  static const std::set<std::string> kOps = {"system.notify",    "tensor.allreduce",      "tensor.barrier",
                                             "tensor.broadcast", "tensor.reduce_scatter", "tensor.allgather",
                                             "tensor.all_to_all", "tensor.all_to_all_v"};
  return kOps.count(op) > 0;
}

// The op call a statement evaluates or binds; null for other statements.
// Kernels call no functions (the npu backend refuses them), so a call of a
// function is not looked into.
Ref<ir::Call> OpCallOf(const StmtPtr& stmt) {
  ExprPtr value;
  if (auto assign = As<ir::AssignStmt>(stmt)) {
    value = assign->value;
  } else if (auto eval = As<ir::EvalStmt>(stmt)) {
    value = eval->expr;
  }
  auto call = value ? As<ir::Call>(value) : nullptr;
  return call && !call->is_function_call() ? call : nullptr;
}

bool IsFence(const StmtPtr& stmt) {
  auto call = OpCallOf(stmt);
  return call && call->op->name == kFenceOp;
}

// Window memory is what peers read and write. A window parameter is a
// DistributedTensorType, and so are the results that alias it: tile.store
// returns its destination's type while that is fully valid (window
// parameters are), the collectives return their window's.
bool IsWindow(const ExprPtr& expr) { return ir::IsA<ir::DistributedTensorType>(expr->type); }

// Whether `call` writes a window argument, by the registry's effects (with
// this call's kwargs: an atomic store also reads). Covers local writes
// (tile.store, tensor.write, tensor.assemble, tensor.get into a window) and
// pushes to a peer (tile.remote_store, tensor.put, tensor.remote_store).
bool WritesWindow(const ir::Call& call, const ops::OpDef& def) {
  for (const auto& effect : def.arg_effects()) {
    const int index = effect.first;
    const auto arg = static_cast<size_t>(index);
    if (arg >= call.args.size() || !IsWindow(call.args[arg])) continue;
    if (def.arg_effect(index, call.kwargs) != ops::ArgEffect::kRead) return true;
  }
  return false;
}

// A fence must follow `stmt`: it publishes window data (a later notify must
// not overtake it) or it is a wait (an acquire: later reads must not see
// data from before it).
bool NeedsFenceAfter(const StmtPtr& stmt) {
  auto call = OpCallOf(stmt);
  if (!call) return false;
  const std::string& op = call->op->name;
  if (op == "system.wait") return true;
  const ops::OpDef* def = ops::OpRegistry::Global().Find(op);
  return def && !SynchronizesItself(op) && WritesWindow(*call, *def);
}

// `system.fence` at the statement it follows, so the backend's source
// comment names the user's line.
StmtPtr FenceAfter(const StmtPtr& stmt) {
  return ir::EvalStmt::Make(ops::OpRegistry::Global().Create(kFenceOp, {}, {}, stmt->span), stmt->span);
}

class FenceInserter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  // A fence after each statement that needs one, unless the next statement
  // already is a fence (so a second run changes nothing).
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    const std::vector<StmtPtr>& children = node->stmts;
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (size_t i = 0; i < children.size(); ++i) {
      const StmtPtr& child = children[i];
      if (!NeedsFenceAfter(child)) {
        stmts.push_back(VisitStmt(child));
        changed |= stmts.back() != child;
        continue;
      }
      stmts.push_back(child);
      if (i + 1 == children.size() || !IsFence(children[i + 1])) {
        stmts.push_back(FenceAfter(child));
        changed = true;
      }
    }
    return changed ? ir::SeqStmts::Make(std::move(stmts), node->span) : node;
  }

  // A statement that is a whole body (`if me != 0: pld.system.wait(...)`)
  // has no next statement: it becomes the statement and its fence.
  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override { return WithFence(node); }
  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override { return WithFence(node); }

 private:
  static StmtPtr WithFence(const StmtPtr& stmt) {
    if (!NeedsFenceAfter(stmt)) return stmt;
    return ir::SeqStmts::Make({stmt, FenceAfter(stmt)}, stmt->span);
  }
};

}  // namespace

ir::ProgramPtr InsertCommFencePass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? FenceInserter().VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
