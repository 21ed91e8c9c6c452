// Template part of IRMutator (included by mutator.h).
#pragma once

namespace pypto::ir {

template <class Field>
bool IRMutator::MutateField(Field& field, FieldRole role) {
  if constexpr (IsRef<Field>::value) {
    using T = typename IsRef<Field>::element;
    if (!field) return false;
    Field updated;
    if constexpr (std::is_base_of_v<Var, T>) {
      VarPtr v = role == FieldRole::kDef ? VisitVarDef(field) : As<Var>(VisitExpr(field));
      updated = As<T>(v);
      PYPTO_CHECK(updated != nullptr, "mutator replaced a variable by a node of another kind");
    } else if constexpr (std::is_same_v<T, Expr>) {
      updated = VisitExpr(field);
    } else if constexpr (std::is_same_v<T, Stmt>) {
      updated = VisitStmt(field);
    } else if constexpr (std::is_same_v<T, Type>) {
      updated = VisitType(field);
    } else if constexpr (std::is_same_v<T, Function>) {
      updated = VisitFunction(field);
    } else {
      return false;  // Op, GlobalVar, concrete types: leaves
    }
    if (updated == field) return false;
    field = updated;
    return true;
  } else if constexpr (IsVector<Field>::value || IsOptional<Field>::value) {
    bool changed = false;
    if constexpr (IsVector<Field>::value) {
      for (auto& item : field) changed |= MutateField(item, role);
    } else if (field) {
      changed = MutateField(*field, role);
    }
    return changed;
  } else if constexpr (std::is_same_v<Field, Attrs>) {
    bool changed = false;
    for (auto& [key, value] : field.mutable_entries()) {
      if (auto* e = std::get_if<ExprPtr>(&value)) changed |= MutateField(*e, FieldRole::kUsual);
      if (auto* es = std::get_if<std::vector<ExprPtr>>(&value)) changed |= MutateField(*es, FieldRole::kUsual);
    }
    return changed;
  } else if constexpr (IsReflectableStruct<Field>::value) {
    bool changed = false;
    field.ForEachField([&](const char*, auto& sub, FieldRole r) { changed |= MutateField(sub, r); });
    return changed;
  } else {
    return false;
  }
}

template <class T>
Ref<T> IRMutator::MutateChildren(const Ref<T>& node) {
  auto copy = std::make_shared<T>(*node);
  bool changed = false;
  copy->ForEachField([&](const char*, auto& field, FieldRole role) {
    if (role != FieldRole::kIgnore) changed |= MutateField(field, role);
  });
  if (!changed) return node;
  return copy;
}

}  // namespace pypto::ir
