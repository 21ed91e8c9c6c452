#include "pypto/ir/mutator.h"

namespace pypto::ir {

ProgramPtr IRMutator::VisitProgram(const ProgramPtr& program) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& f : program->functions) {
    functions.push_back(VisitFunction(f));
    changed |= functions.back() != f;
  }
  if (!changed) return program;
  return Program::Make(program->name, std::move(functions), program->span);
}

FunctionPtr IRMutator::VisitFunction(const FunctionPtr& function) { return MutateChildren(function); }

ExprPtr IRMutator::VisitExpr(const ExprPtr& expr) {
  switch (expr->kind()) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return Mutate_(std::static_pointer_cast<const T>(expr));
    PYPTO_IR_EXPR_NODES(PYPTO_X)
#undef PYPTO_X
    default: ThrowInternalError(std::string("VisitExpr on a ") + expr->type_name());
  }
}

StmtPtr IRMutator::VisitStmt(const StmtPtr& stmt) {
  switch (stmt->kind()) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return Mutate_(std::static_pointer_cast<const T>(stmt));
    PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X
    default: ThrowInternalError(std::string("VisitStmt on a ") + stmt->type_name());
  }
}

TypePtr IRMutator::VisitType(const TypePtr& type) { return type; }

VarPtr IRMutator::VisitVarDef(const VarPtr& var) {
  auto iter_arg = As<IterArg>(var);
  if (!iter_arg || !iter_arg->init_value) return var;
  ExprPtr init = VisitExpr(iter_arg->init_value);
  if (init == iter_arg->init_value) return var;
  auto rebuilt = IterArg::Make(iter_arg->name_hint, iter_arg->type, init, iter_arg->span);
  Remap(var, rebuilt);
  return rebuilt;
}

VarPtr IRMutator::Remapped(const VarPtr& var) const {
  auto it = var_remap_.find(var.get());
  return it == var_remap_.end() ? var : it->second;
}

StmtPtr IRMutator::MutateSplicingStatements(const Ref<SeqStmts>& node) {
  std::vector<StmtPtr> stmts;
  bool changed = false;
  for (const auto& child : node->stmts) {
    StmtPtr updated = VisitStmt(child);
    changed |= updated != child;
    auto seq = updated != child ? As<SeqStmts>(updated) : nullptr;
    if (seq) {
      stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      stmts.push_back(updated);
    }
  }
  return changed ? SeqStmts::Make(std::move(stmts), node->span) : node;
}

ExprPtr IRMutator::Mutate_(const Ref<Var>& node) { return Remapped(node); }
ExprPtr IRMutator::Mutate_(const Ref<IterArg>& node) { return Remapped(node); }
ExprPtr IRMutator::Mutate_(const Ref<MemRef>& node) { return Remapped(node); }
#define PYPTO_X(T) \
  ExprPtr IRMutator::Mutate_(const Ref<T>& node) { return MutateChildren(node); }
PYPTO_X(ConstInt)
PYPTO_X(ConstFloat)
PYPTO_X(ConstBool)
PYPTO_X(BinaryExpr)
PYPTO_X(UnaryExpr)
PYPTO_X(Call)
PYPTO_X(MakeTuple)
PYPTO_X(TupleGetItem)
PYPTO_X(Submit)
#undef PYPTO_X
#define PYPTO_X(T) \
  StmtPtr IRMutator::Mutate_(const Ref<T>& node) { return MutateChildren(node); }
PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X

}  // namespace pypto::ir
