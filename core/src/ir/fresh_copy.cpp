#include "pypto/ir/fresh_copy.h"

#include "pypto/ir/mutator.h"

namespace pypto::ir {

namespace {

class FreshCopier : public IRMutator {
 public:
  using IRMutator::Mutate_;

  FreshCopier(VarSubstitutions substitutions, std::string name_suffix)
      : substitutions_(std::move(substitutions)), name_suffix_(std::move(name_suffix)) {}

  VarPtr VisitVarDef(const VarPtr& var) override {
    VarPtr fresh = MakeFresh(var);
    Remap(var, fresh);
    return fresh;
  }

  ExprPtr Mutate_(const Ref<Var>& node) override { return Substitute(node); }
  ExprPtr Mutate_(const Ref<IterArg>& node) override { return Substitute(node); }

  TypePtr VisitType(const TypePtr& type) override {
    if (!type) return type;
    return DispatchNode(*type, [&](const auto& concrete) -> TypePtr {
      using T = std::decay_t<decltype(concrete)>;
      if constexpr (std::is_base_of_v<Type, T>) {
        return MutateChildren(std::static_pointer_cast<const T>(type));
      } else {
        return type;
      }
    });
  }

 private:
  ExprPtr Substitute(const VarPtr& var) {
    auto it = substitutions_.find(var.get());
    if (it != substitutions_.end()) return it->second;
    return Remapped(var);
  }

  VarPtr MakeFresh(const VarPtr& var) {
    std::string name = var->name_hint + name_suffix_;
    TypePtr type = VisitType(var->type);
    if (auto iter_arg = As<IterArg>(var)) {
      ExprPtr init = iter_arg->init_value ? VisitExpr(iter_arg->init_value) : nullptr;
      return IterArg::Make(std::move(name), std::move(type), std::move(init), var->span);
    }
    if (auto memref = As<MemRef>(var)) {
      auto copy = std::make_shared<MemRef>(*memref);  // the copy gets its own unique_id
      copy->name_hint = std::move(name);
      copy->type = std::move(type);
      if (memref->base) copy->base = As<Var>(VisitExpr(memref->base));
      if (memref->byte_offset) copy->byte_offset = VisitExpr(memref->byte_offset);
      return copy;
    }
    return Var::Make(std::move(name), std::move(type), var->span);
  }

  VarSubstitutions substitutions_;
  std::string name_suffix_;
};

}  // namespace

StmtPtr CopyWithFreshDefinitions(const StmtPtr& stmt, VarSubstitutions substitutions, const std::string& name_suffix) {
  return FreshCopier(std::move(substitutions), name_suffix).VisitStmt(stmt);
}

}  // namespace pypto::ir
