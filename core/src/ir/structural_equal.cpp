// Structural equality and the first-difference report, written once over the
// field lists of reflection.h so that new node kinds and fields need no code here.
#include <bit>
#include <charconv>
#include <unordered_map>

#include "pypto/ir/reflection.h"
#include "pypto/ir/structural.h"
#include "pypto/support/error.h"

namespace pypto::ir {
namespace {

// ------------------------------------------------------------ describing values

// The shortest text that reads back as the same double; 64 bytes always suffice.
std::string FormatDouble(double value) {
  char buffer[64];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof(buffer), value).ptr);
}

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

std::string Count(size_t n, const char* singular, const char* plural) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string DescribeNode(const Node* node) {
  if (node == nullptr) return "null";
  if (auto v = As<Var>(node)) return std::string(node->type_name()) + " " + Quoted(v->name_hint);
  if (auto c = As<ConstInt>(node)) return "ConstInt " + std::to_string(c->value);
  if (auto c = As<ConstFloat>(node)) return "ConstFloat " + FormatDouble(c->value);
  if (auto c = As<ConstBool>(node)) return std::string("ConstBool ") + (c->value ? "True" : "False");
  if (auto e = As<BinaryExpr>(node)) return std::string("BinaryExpr ") + BinaryOpName(e->op);
  if (auto e = As<UnaryExpr>(node)) return std::string("UnaryExpr ") + UnaryOpName(e->op);
  if (auto c = As<Call>(node)) return "Call " + (c->op ? c->op->name : std::string("<no op>"));
  if (auto o = As<Op>(node)) return std::string(node->type_name()) + " " + o->name;
  if (auto f = As<Function>(node)) return "Function " + Quoted(f->name);
  if (auto p = As<Program>(node)) return "Program " + Quoted(p->name);
  // A non-owning handle: TypeToString only reads the node during this call.
  if (auto t = As<Type>(node)) return TypeToString(TypePtr(TypePtr(), t));
  return node->type_name();
}

std::string DescribeEnum(BinaryOp op) { return BinaryOpName(op); }
std::string DescribeEnum(UnaryOp op) { return UnaryOpName(op); }
template <class E>
std::string DescribeEnum(E value) {
  return ToString(value);
}

template <class T>
std::string DescribeValue(const T& value) {
  if constexpr (IsRef<T>::value) {
    return DescribeNode(value.get());
  } else if constexpr (IsOptional<T>::value) {
    return value ? DescribeValue(*value) : "unset";
  } else if constexpr (IsVector<T>::value) {
    return Count(value.size(), "element", "elements");
  } else if constexpr (std::is_same_v<T, Attrs>) {
    return Count(value.size(), "entry", "entries");
  } else if constexpr (std::is_same_v<T, bool>) {
    return value ? "True" : "False";
  } else if constexpr (std::is_same_v<T, double>) {
    return FormatDouble(value);
  } else if constexpr (std::is_arithmetic_v<T>) {
    return std::to_string(value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return Quoted(value);
  } else if constexpr (std::is_same_v<T, DataType>) {
    return value.name();
  } else if constexpr (std::is_same_v<T, EnumAttr>) {
    return value.ToString();
  } else if constexpr (std::is_enum_v<T>) {
    return DescribeEnum(value);
  } else {
    // Structs are compared field by field; they are described whole only when
    // an optional one is present on one side and absent on the other.
    static_assert(IsReflectableStruct<T>::value, "DescribeValue: unsupported field type");
    return "set";
  }
}

std::string DescribeAttrValue(const AttrValue& value) {
  return std::string(AttrValueKindName(value)) + " " +
         std::visit([](const auto& alternative) { return DescribeValue(alternative); }, value);
}

// ------------------------------------------------------------ the path to a field

struct PathStep {
  const char* field = nullptr;       // a field name, or
  const std::string* key = nullptr;  // an attribute key, or
  size_t index = 0;                  // an element index
};

std::string RenderPath(const std::vector<PathStep>& steps) {
  std::string out;
  for (const auto& step : steps) {
    if (step.field != nullptr) {
      if (!out.empty()) out += ".";
      out += step.field;
    } else if (step.key != nullptr) {
      out += "[\"" + *step.key + "\"]";
    } else {
      out += "[" + std::to_string(step.index) + "]";
    }
  }
  return out.empty() ? "<root>" : out;
}

class ScopedStep {
 public:
  ScopedStep(std::vector<PathStep>& steps, PathStep step) : steps_(steps) { steps_.push_back(step); }
  ~ScopedStep() { steps_.pop_back(); }
  ScopedStep(const ScopedStep&) = delete;
  ScopedStep& operator=(const ScopedStep&) = delete;

 private:
  std::vector<PathStep>& steps_;
};

// ------------------------------------------------------------ the comparison

// Compares two trees, keeping a one-to-one correspondence of variables. A
// variable enters it at its binding site (a Def field), or at its first use
// when it is free: free variables correspond only to themselves unless
// `map_free_vars`. Once in, every later occurrence must agree with it.
class EqualChecker {
 public:
  EqualChecker(bool map_free_vars, bool record_difference)
      : map_free_vars_(map_free_vars), record_difference_(record_difference) {}

  // Only the root takes the same-pointer shortcut: below it, one shared subtree
  // can mean different things on the two sides once variables are bound
  // differently, and skipping it would also break "equal implies same hash".
  bool Root(const Node* lhs, const Node* rhs) {
    if (lhs == rhs) return true;
    return Nodes(lhs, rhs, FieldRole::kUsual);
  }

  std::optional<std::string> TakeDifference() { return std::move(difference_); }

 private:
  // Records the first difference; `describe` builds "lhs vs rhs (why)" only when wanted.
  template <class Describe>
  bool Differ(Describe&& describe) {
    if (record_difference_ && !difference_) difference_ = RenderPath(path_) + ": " + describe();
    return false;
  }

  template <class T>
  bool ValuesDiffer(const T& lhs, const T& rhs) {
    return Differ([&] { return DescribeValue(lhs) + " vs " + DescribeValue(rhs); });
  }

  bool Nodes(const Node* lhs, const Node* rhs, FieldRole role) {
    if (lhs == nullptr || rhs == nullptr) {
      if (lhs == rhs) return true;
      return Differ([&] { return DescribeNode(lhs) + " vs " + DescribeNode(rhs); });
    }
    if (lhs->kind() != rhs->kind()) {
      return Differ([&] { return DescribeNode(lhs) + " vs " + DescribeNode(rhs); });
    }
    if (Var::classof(lhs->kind())) {
      return role == FieldRole::kDef ? VarDefinitions(*As<Var>(lhs), *As<Var>(rhs))
                                     : VarUses(*As<Var>(lhs), *As<Var>(rhs));
    }
    return SameKindFields(*lhs, *rhs);
  }

  bool SameKindFields(const Node& lhs, const Node& rhs) {
    return DispatchNode(lhs, [&](const auto& concrete) {
      using T = std::decay_t<decltype(concrete)>;
      return Fields(concrete, static_cast<const T&>(rhs));
    });
  }

  template <class T>
  bool Fields(const T& lhs, const T& rhs) {
    bool equal = true;
    ForEachFieldPair(lhs, rhs, [&](const char* name, const auto& a, const auto& b, FieldRole role) {
      if (!equal || role == FieldRole::kIgnore) return;
      ScopedStep step(path_, PathStep{name});
      equal = Field(a, b, role);
    });
    return equal;
  }

  template <class T>
  bool Field(const T& lhs, const T& rhs, FieldRole role) {
    if constexpr (IsRef<T>::value) {
      return Nodes(lhs.get(), rhs.get(), role);
    } else if constexpr (IsVector<T>::value) {
      if (lhs.size() != rhs.size()) return ValuesDiffer(lhs, rhs);
      for (size_t i = 0; i < lhs.size(); ++i) {
        ScopedStep step(path_, PathStep{nullptr, nullptr, i});
        if (!Field(lhs[i], rhs[i], role)) return false;
      }
      return true;
    } else if constexpr (IsOptional<T>::value) {
      if (lhs.has_value() != rhs.has_value()) return ValuesDiffer(lhs, rhs);
      return !lhs.has_value() || Field(*lhs, *rhs, role);
    } else if constexpr (std::is_same_v<T, Attrs>) {
      return AttrsEqual(lhs, rhs);
    } else if constexpr (IsReflectableStruct<T>::value) {
      return Fields(lhs, rhs);
    } else if constexpr (std::is_same_v<T, double>) {
      // Bit patterns, so that NaN equals itself and 0.0 differs from -0.0, as in the hash.
      if (std::bit_cast<uint64_t>(lhs) == std::bit_cast<uint64_t>(rhs)) return true;
      return ValuesDiffer(lhs, rhs);
    } else {
      if (lhs == rhs) return true;
      return ValuesDiffer(lhs, rhs);
    }
  }

  bool AttrsEqual(const Attrs& lhs, const Attrs& rhs) {
    if (lhs.size() != rhs.size()) return ValuesDiffer(lhs, rhs);
    for (size_t i = 0; i < lhs.size(); ++i) {
      const auto& [lhs_key, lhs_value] = lhs.entries()[i];
      const auto& [rhs_key, rhs_value] = rhs.entries()[i];
      if (lhs_key != rhs_key) {
        ScopedStep step(path_, PathStep{nullptr, nullptr, i});
        return Differ([&] { return "key " + Quoted(lhs_key) + " vs key " + Quoted(rhs_key); });
      }
      ScopedStep step(path_, PathStep{nullptr, &lhs_key});
      if (lhs_value.index() != rhs_value.index()) {
        return Differ([&] { return DescribeAttrValue(lhs_value) + " vs " + DescribeAttrValue(rhs_value); });
      }
      bool equal = std::visit(
          [&](const auto& a) {
            using T = std::decay_t<decltype(a)>;
            return Field(a, std::get<T>(rhs_value), FieldRole::kUsual);
          },
          lhs_value);
      if (!equal) return false;
    }
    return true;
  }

  // A variable at a binding site: binds lhs to rhs unless one of them is bound already.
  bool VarDefinitions(const Var& lhs, const Var& rhs) {
    if (auto known = ExistingBinding(lhs, rhs)) return *known;
    return BindAfterComparingFields(lhs, rhs);
  }

  bool VarUses(const Var& lhs, const Var& rhs) {
    if (auto known = ExistingBinding(lhs, rhs)) return *known;
    if (map_free_vars_) return BindAfterComparingFields(lhs, rhs);
    if (&lhs == &rhs) {
      Bind(lhs, rhs);
      return true;
    }
    return Differ([&] {
      return DescribeNode(&lhs) + " vs " + DescribeNode(&rhs) +
             " (different free variables; pass map_free_vars=true to map them onto each other)";
    });
  }

  // Whether lhs and rhs correspond, when either has a partner already; nullopt when neither has.
  std::optional<bool> ExistingBinding(const Var& lhs, const Var& rhs) {
    if (auto bound = lhs_to_rhs_.find(&lhs); bound != lhs_to_rhs_.end()) {
      if (bound->second == &rhs) return true;
      return BoundElsewhere(lhs, rhs, lhs, *bound->second, "left");
    }
    if (auto bound = rhs_to_lhs_.find(&rhs); bound != rhs_to_lhs_.end()) {
      return BoundElsewhere(lhs, rhs, rhs, *bound->second, "right");
    }
    return std::nullopt;
  }

  bool BoundElsewhere(const Var& lhs, const Var& rhs, const Var& bound, const Var& partner, const char* side) {
    return Differ([&] {
      return DescribeNode(&lhs) + " vs " + DescribeNode(&rhs) + " (" + Quoted(bound.name_hint) + " on the " + side +
             " already corresponds to " + Quoted(partner.name_hint) + ")";
    });
  }

  bool BindAfterComparingFields(const Var& lhs, const Var& rhs) {
    if (!SameKindFields(lhs, rhs)) return false;
    Bind(lhs, rhs);
    return true;
  }

  void Bind(const Var& lhs, const Var& rhs) {
    lhs_to_rhs_.emplace(&lhs, &rhs);
    rhs_to_lhs_.emplace(&rhs, &lhs);
  }

  bool map_free_vars_;
  bool record_difference_;
  std::unordered_map<const Var*, const Var*> lhs_to_rhs_;
  std::unordered_map<const Var*, const Var*> rhs_to_lhs_;
  std::vector<PathStep> path_;
  std::optional<std::string> difference_;
};

}  // namespace

bool StructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars) {
  return EqualChecker(map_free_vars, false).Root(a.get(), b.get());
}

std::optional<std::string> StructuralDiff(const NodePtr& a, const NodePtr& b, bool map_free_vars) {
  EqualChecker checker(map_free_vars, true);
  if (checker.Root(a.get(), b.get())) return std::nullopt;
  return checker.TakeDifference();
}

void AssertStructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars) {
  auto difference = StructuralDiff(a, b, map_free_vars);
  if (!difference) return;
  ThrowValueError("AssertStructuralEqual: the IR differs at " + *difference);
}

}  // namespace pypto::ir
