#include "pypto/ir/visitor.h"

namespace pypto::ir {

void IRVisitor::VisitProgram(const ProgramPtr& program) {
  for (const auto& f : program->functions) VisitFunction(f);
}

void IRVisitor::VisitFunction(const FunctionPtr& function) {
  for (const auto& p : function->params) VisitVarDef(p);
  for (const auto& t : function->return_types) VisitType(t);
  if (function->body) VisitStmt(function->body);
}

void IRVisitor::VisitExpr(const ExprPtr& expr) {
  switch (expr->kind()) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return Visit_(std::static_pointer_cast<const T>(expr));
    PYPTO_IR_EXPR_NODES(PYPTO_X)
#undef PYPTO_X
    default: ThrowInternalError(std::string("VisitExpr on a ") + expr->type_name());
  }
}

void IRVisitor::VisitStmt(const StmtPtr& stmt) {
  switch (stmt->kind()) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return Visit_(std::static_pointer_cast<const T>(stmt));
    PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X
    default: ThrowInternalError(std::string("VisitStmt on a ") + stmt->type_name());
  }
}

void IRVisitor::VisitType(const TypePtr&) {}

void IRVisitor::VisitVarDef(const VarPtr& var) {
  if (auto it = As<IterArg>(var)) {
    if (it->init_value) VisitExpr(it->init_value);
  }
}

// Variables are leaves; every other node walks its children.
void IRVisitor::Visit_(const Ref<Var>&) {}
void IRVisitor::Visit_(const Ref<IterArg>&) {}
void IRVisitor::Visit_(const Ref<MemRef>&) {}
#define PYPTO_X(T) \
  void IRVisitor::Visit_(const Ref<T>& node) { VisitChildren(*node); }
PYPTO_X(ConstInt)
PYPTO_X(ConstFloat)
PYPTO_X(ConstBool)
PYPTO_X(BinaryExpr)
PYPTO_X(UnaryExpr)
PYPTO_X(Call)
PYPTO_X(MakeTuple)
PYPTO_X(TupleGetItem)
PYPTO_X(Submit)
PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X

template <class Field>
void IRVisitor::VisitField(const Field& field, FieldRole role) {
  if constexpr (IsRef<Field>::value) {
    using T = typename IsRef<Field>::element;
    if (!field) return;
    if constexpr (std::is_base_of_v<Var, T>) {
      if (role == FieldRole::kDef) {
        VisitVarDef(field);
      } else {
        VisitExpr(field);
      }
    } else if constexpr (std::is_same_v<T, Expr>) {
      VisitExpr(field);
    } else if constexpr (std::is_same_v<T, Stmt>) {
      VisitStmt(field);
    } else if constexpr (std::is_same_v<T, Type>) {
      VisitType(field);
    } else if constexpr (std::is_same_v<T, Function>) {
      VisitFunction(field);
    }
  } else if constexpr (IsVector<Field>::value) {
    for (const auto& item : field) VisitField(item, role);
  } else if constexpr (IsOptional<Field>::value) {
    if (field) VisitField(*field, role);
  } else if constexpr (std::is_same_v<Field, Attrs>) {
    for (const auto& [key, value] : field) {
      if (auto* e = std::get_if<ExprPtr>(&value)) VisitField(*e, FieldRole::kUsual);
      if (auto* es = std::get_if<std::vector<ExprPtr>>(&value)) VisitField(*es, FieldRole::kUsual);
    }
  } else if constexpr (IsReflectableStruct<Field>::value) {
    ForEachFieldOf(field, [&](const char*, const auto& sub, FieldRole r) { VisitField(sub, r); });
  }
}

void IRVisitor::VisitChildren(const Node& node) {
  DispatchNode(node, [&](const auto& concrete) {
    ForEachFieldOf(concrete, [&](const char*, const auto& field, FieldRole role) {
      if (role != FieldRole::kIgnore) VisitField(field, role);
    });
  });
}

}  // namespace pypto::ir
