// Rebuilding traversal. Each hook returns the node to use in place of its
// input; returning the input unchanged keeps sharing. The default for every
// node kind rebuilds it only if one of its children changed.
//
// When VisitVarDef returns a different variable for a binding site, later
// uses of the old variable are rewritten to the new one automatically.
#pragma once

#include <unordered_map>

#include "pypto/ir/reflection.h"

namespace pypto::ir {

class IRMutator {
 public:
  virtual ~IRMutator() = default;

  ProgramPtr VisitProgram(const ProgramPtr& program);
  virtual FunctionPtr VisitFunction(const FunctionPtr& function);
  virtual ExprPtr VisitExpr(const ExprPtr& expr);
  virtual StmtPtr VisitStmt(const StmtPtr& stmt);
  // Identity by default (types are not rewritten unless a subclass asks).
  virtual TypePtr VisitType(const TypePtr& type);
  // A binding site. The default rebuilds an IterArg whose init value changed.
  virtual VarPtr VisitVarDef(const VarPtr& var);

#define PYPTO_X(T) virtual ExprPtr Mutate_(const Ref<T>& node);
  PYPTO_IR_EXPR_NODES(PYPTO_X)
#undef PYPTO_X
#define PYPTO_X(T) virtual StmtPtr Mutate_(const Ref<T>& node);
  PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X

 protected:
  // Rebuilds `node` with every child field passed through the hooks above;
  // returns `node` itself if nothing changed.
  template <class T>
  Ref<T> MutateChildren(const Ref<T>& node);

  // Visits each statement of `node`; a statement rewritten into a SeqStmts is
  // spliced into this one rather than nested. Returns `node` itself if no
  // statement changed. For passes that expand one statement into several.
  StmtPtr MutateSplicingStatements(const Ref<SeqStmts>& node);

  // Makes later uses of `from` refer to `to`.
  void Remap(const VarPtr& from, const VarPtr& to) { var_remap_[from.get()] = to; }
  VarPtr Remapped(const VarPtr& var) const;

 private:
  template <class Field>
  bool MutateField(Field& field, FieldRole role);

  std::unordered_map<const Var*, VarPtr> var_remap_;
};

}  // namespace pypto::ir

#include "pypto/ir/mutator_impl.h"
