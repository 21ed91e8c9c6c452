// Read-only traversal. Subclasses override the per-kind `Visit_` hooks and
// call `VisitChildren` (or the base hook) to keep walking.
#pragma once

#include "pypto/ir/reflection.h"

namespace pypto::ir {

class IRVisitor {
 public:
  virtual ~IRVisitor() = default;

  void VisitProgram(const ProgramPtr& program);
  virtual void VisitFunction(const FunctionPtr& function);
  virtual void VisitExpr(const ExprPtr& expr);
  virtual void VisitStmt(const StmtPtr& stmt);
  // Types are not walked by default (dims are rarely interesting); override
  // and call VisitChildren(*type) to walk them.
  virtual void VisitType(const TypePtr& type);
  // A binding site (assign target, loop var, iter_arg, return var, param).
  // The default visits an IterArg's init value, which is a use.
  virtual void VisitVarDef(const VarPtr& var);

#define PYPTO_X(T) virtual void Visit_(const Ref<T>& node);
  PYPTO_IR_EXPR_NODES(PYPTO_X)
  PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X

 protected:
  // Walks every field of `node` with the hooks above.
  void VisitChildren(const Node& node);

 private:
  template <class Field>
  void VisitField(const Field& field, FieldRole role);
};

}  // namespace pypto::ir
