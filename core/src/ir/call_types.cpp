#include "pypto/ir/call_types.h"

#include <type_traits>
#include <unordered_map>

#include "pypto/ir/mutator.h"

namespace pypto::ir {

namespace {

using Bindings = std::unordered_map<const Var*, ExprPtr>;

class VarReplacer : public IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit VarReplacer(const Bindings& bindings) : bindings_(bindings) {}

  ExprPtr Mutate_(const Ref<Var>& node) override {
    auto it = bindings_.find(node.get());
    return it != bindings_.end() ? it->second : node;
  }

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
  const Bindings& bindings_;
};

// The dims of a parameter's shaped type that are variables, bound to the
// argument type's dims in the same positions.
template <typename ShapedType>
void BindDims(const TypePtr& param_type, const TypePtr& arg_type, Bindings& bindings) {
  auto param = As<ShapedType>(param_type);
  auto arg = As<ShapedType>(arg_type);
  if (!param || !arg || param->shape.size() != arg->shape.size()) return;
  for (size_t i = 0; i < param->shape.size(); ++i) {
    if (auto dim = As<Var>(param->shape[i]); dim && !bindings.count(dim.get())) bindings[dim.get()] = arg->shape[i];
  }
}

}  // namespace

std::vector<TypePtr> CallSiteReturnTypes(const std::vector<VarPtr>& params, const std::vector<TypePtr>& return_types,
                                         const std::vector<ExprPtr>& args) {
  Bindings bindings;
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    if (!params[i] || !args[i]) continue;
    if (IsA<ScalarType>(params[i]->type)) bindings[params[i].get()] = args[i];
  }
  for (size_t i = 0; i < params.size() && i < args.size(); ++i) {
    if (!params[i] || !args[i]) continue;
    BindDims<TensorType>(params[i]->type, args[i]->type, bindings);
    BindDims<TileType>(params[i]->type, args[i]->type, bindings);
  }
  VarReplacer replacer(bindings);
  std::vector<TypePtr> out;
  out.reserve(return_types.size());
  for (const auto& type : return_types) out.push_back(bindings.empty() ? type : replacer.VisitType(type));
  return out;
}

TypePtr CallTypeOf(const std::vector<TypePtr>& return_types) {
  if (return_types.empty()) return UnknownType::Make();
  if (return_types.size() == 1) return return_types[0];
  return TupleType::Make(return_types);
}

}  // namespace pypto::ir
