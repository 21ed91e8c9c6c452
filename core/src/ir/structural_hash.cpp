// Structural hashing, consistent with StructuralEqual: whatever equality
// compares is hashed, whatever it ignores is not, and variables hash the way
// equality matches them (by order of first binding, or by identity when free).
#include <bit>
#include <string_view>
#include <unordered_map>

#include "pypto/ir/reflection.h"
#include "pypto/ir/structural.h"

namespace pypto::ir {
namespace {

uint64_t Combine(uint64_t seed, uint64_t value) {
  return seed ^ (value + 0x9e3779b9 + (seed << 6) + (seed >> 2));
}

// FNV-1a: stable across runs and builds, unlike std::hash.
uint64_t HashText(std::string_view text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

// Distinct tags keep different situations from colliding by construction.
enum Tag : uint64_t {
  kNullTag = 0x6e756c6c,
  kNodeTag,
  kBoundVarTag,
  kFirstVarTag,
  kFreeVarTag,
  kUnsetTag,
  kSetTag,
};

class Hasher {
 public:
  explicit Hasher(bool map_free_vars) : map_free_vars_(map_free_vars) {}

  uint64_t Node(const pypto::ir::Node* node, FieldRole role) {
    if (node == nullptr) return kNullTag;
    uint64_t seed = Combine(kNodeTag, static_cast<uint64_t>(node->kind()));
    if (auto var = As<Var>(node)) return VarHash(seed, *var, role);
    return Combine(seed, Fields(*node));
  }

 private:
  // Mirrors EqualChecker: a bound variable hashes as the order in which it
  // was first bound; a first binding also hashes what equality compares then
  // (type, init value); a free variable under identity hashes its id.
  uint64_t VarHash(uint64_t seed, const Var& var, FieldRole role) {
    if (auto known = order_.find(&var); known != order_.end()) {
      return Combine(Combine(seed, kBoundVarTag), known->second);
    }
    if (role != FieldRole::kDef && !map_free_vars_) return Combine(Combine(seed, kFreeVarTag), var.unique_id);
    uint64_t order = order_.size();
    order_.emplace(&var, order);
    return Combine(Combine(Combine(seed, kFirstVarTag), order), Fields(var));
  }

  uint64_t Fields(const pypto::ir::Node& node) {
    return DispatchNode(node, [&](const auto& concrete) { return StructFields(concrete); });
  }

  template <class T>
  uint64_t StructFields(const T& object) {
    uint64_t seed = 0;
    ForEachFieldOf(object, [&](const char*, const auto& field, FieldRole role) {
      if (role != FieldRole::kIgnore) seed = Combine(seed, Field(field, role));
    });
    return seed;
  }

  template <class T>
  uint64_t Field(const T& value, FieldRole role) {
    if constexpr (IsRef<T>::value) {
      return Node(value.get(), role);
    } else if constexpr (IsVector<T>::value) {
      uint64_t seed = value.size();
      for (const auto& item : value) seed = Combine(seed, Field(item, role));
      return seed;
    } else if constexpr (IsOptional<T>::value) {
      return value ? Combine(kSetTag, Field(*value, role)) : static_cast<uint64_t>(kUnsetTag);
    } else if constexpr (std::is_same_v<T, Attrs>) {
      return AttrsHash(value);
    } else if constexpr (IsReflectableStruct<T>::value) {
      return StructFields(value);
    } else if constexpr (std::is_same_v<T, double>) {
      return std::bit_cast<uint64_t>(value);
    } else if constexpr (std::is_same_v<T, std::string>) {
      return HashText(value);
    } else if constexpr (std::is_same_v<T, DataType>) {
      return static_cast<uint64_t>(value.code());
    } else if constexpr (std::is_same_v<T, EnumAttr>) {
      return Combine(HashText(value.type), static_cast<uint64_t>(value.value));
    } else {
      static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>, "StructuralHash: unsupported field type");
      return static_cast<uint64_t>(value);
    }
  }

  uint64_t AttrsHash(const Attrs& attrs) {
    uint64_t seed = attrs.size();
    for (const auto& [key, value] : attrs) {
      seed = Combine(seed, HashText(key));
      seed = Combine(seed, value.index());
      seed = Combine(seed, std::visit([&](const auto& v) { return Field(v, FieldRole::kUsual); }, value));
    }
    return seed;
  }

  bool map_free_vars_;
  std::unordered_map<const Var*, uint64_t> order_;
};

}  // namespace

uint64_t StructuralHash(const NodePtr& node, bool map_free_vars) {
  return Hasher(map_free_vars).Node(node.get(), FieldRole::kUsual);
}

}  // namespace pypto::ir
