// Enumerations of the IR. Each has stable integer values (serialized) and
// Python-side names (printed as `pl.<Enum>.<Name>`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pypto::ir {

// Every IR enum is described once here: X(EnumType, PythonName, values...)
// where each value is V(CppName, python_name, int).
#define PYPTO_ENUM_MEMORY_SPACE(V) \
  V(DDR, DDR, 0) V(Vec, Vec, 1) V(Mat, Mat, 2) V(Left, Left, 3) V(Right, Right, 4) V(Acc, Acc, 5) V(Bias, Bias, 6)
#define PYPTO_ENUM_FOR_KIND(V) V(Sequential, Sequential, 0) V(Parallel, Parallel, 1) V(Unroll, Unroll, 2) V(Pipeline, Pipeline, 3)
// Runtime: a `pl.manual_scope()` region, in which the runtime derives no
// dependencies (only deps= order tasks). AUTO regions are the default
// everywhere and are not represented. SplitAiv: a `pl.split_aiv` region of a
// hand-split mixed kernel, the code both AIV lanes run (its body starts by
// binding the lane index); its `split` says how its crossings halve tiles.
#define PYPTO_ENUM_SCOPE_KIND(V) \
  V(InCore, InCore, 0) V(Cluster, Cluster, 2) V(Hierarchy, Hierarchy, 3) V(Spmd, Spmd, 4) V(Runtime, Runtime, 5) \
      V(SplitAiv, SplitAiv, 7)
#define PYPTO_ENUM_SPLIT_MODE(V) V(None, NONE, 0) V(UpDown, UP_DOWN, 1) V(LeftRight, LEFT_RIGHT, 2)
#define PYPTO_ENUM_FUNCTION_TYPE(V)                                                                  \
  V(Opaque, Opaque, 0) V(Orchestration, Orchestration, 1) V(InCore, InCore, 2) V(AIC, AIC, 3) V(AIV, AIV, 4) \
  V(Group, Group, 5) V(Spmd, Spmd, 6) V(Inline, Inline, 7)
#define PYPTO_ENUM_PARAM_DIRECTION(V) V(In, In, 0) V(Out, Out, 1) V(InOut, InOut, 2)
#define PYPTO_ENUM_LEVEL(V)                                                                                  \
  V(AIV, AIV, 0) V(AIC, AIC, 1) V(CORE_GROUP, CORE_GROUP, 2) V(CHIP_DIE, CHIP_DIE, 3) V(CHIP, CHIP, 4)         \
  V(HOST, HOST, 5) V(CLUSTER_0, CLUSTER_0, 6) V(CLUSTER_1, CLUSTER_1, 7) V(CLUSTER_2, CLUSTER_2, 8) V(GLOBAL, GLOBAL, 9)
#define PYPTO_ENUM_ROLE(V) V(Orchestrator, Orchestrator, 0) V(SubWorker, SubWorker, 1)
#define PYPTO_ENUM_PAD_VALUE(V) V(Null, null, 0) V(Zero, zero, 1) V(Max, max, 2) V(Min, min, 3)
#define PYPTO_ENUM_TILE_LAYOUT(V) V(NoneBox, none_box, 0) V(RowMajor, row_major, 1) V(ColMajor, col_major, 2)
#define PYPTO_ENUM_TENSOR_LAYOUT(V) V(ND, ND, 0) V(DN, DN, 1) V(NZ, NZ, 2)

#define PYPTO_IR_ENUMS(X)                                         \
  X(MemorySpace, MemorySpace, PYPTO_ENUM_MEMORY_SPACE)            \
  X(ForKind, ForKind, PYPTO_ENUM_FOR_KIND)                        \
  X(ScopeKind, ScopeKind, PYPTO_ENUM_SCOPE_KIND)                  \
  X(SplitMode, SplitMode, PYPTO_ENUM_SPLIT_MODE)                  \
  X(FunctionType, FunctionType, PYPTO_ENUM_FUNCTION_TYPE)         \
  X(ParamDirection, ParamDirection, PYPTO_ENUM_PARAM_DIRECTION)   \
  X(Level, Level, PYPTO_ENUM_LEVEL)                               \
  X(Role, Role, PYPTO_ENUM_ROLE)                                  \
  X(PadValue, PadValue, PYPTO_ENUM_PAD_VALUE)                     \
  X(TileLayout, TileLayout, PYPTO_ENUM_TILE_LAYOUT)               \
  X(TensorLayout, TensorLayout, PYPTO_ENUM_TENSOR_LAYOUT)

#define PYPTO_ENUM_VALUE(cpp, py, val) cpp = val,
#define PYPTO_DECLARE_ENUM(Type, PyName, VALUES)                      \
  enum class Type : int { VALUES(PYPTO_ENUM_VALUE) };                 \
  const char* ToString(Type v);                                       \
  template <>                                                         \
  struct EnumInfo<Type> {                                             \
    static constexpr const char* kName = #PyName;                     \
    static const std::vector<std::pair<Type, const char*>>& Values(); \
  };

template <class E>
struct EnumInfo;

PYPTO_IR_ENUMS(PYPTO_DECLARE_ENUM)
#undef PYPTO_DECLARE_ENUM

template <class E>
std::optional<E> EnumFromString(const std::string& name) {
  for (const auto& [value, text] : EnumInfo<E>::Values()) {
    if (name == text) return value;
  }
  return std::nullopt;
}

// A generic enum value as stored in kwargs/attrs: the enum's Python name
// ("MemorySpace") plus the integer value. Printable without knowing the type.
struct EnumAttr {
  std::string type;
  int value = 0;

  template <class E>
  static EnumAttr Of(E v) { return EnumAttr{EnumInfo<E>::kName, static_cast<int>(v)}; }
  template <class E>
  std::optional<E> As() const {
    if (type != EnumInfo<E>::kName) return std::nullopt;
    return static_cast<E>(value);
  }
  // "MemorySpace.Vec"; unknown enum types print as "Type(3)".
  std::string ToString() const;
  bool operator==(const EnumAttr& o) const = default;
};

// The python name of `value` in the enum called `type`, if both are known.
std::optional<std::string> EnumValueName(const std::string& type, int value);
std::optional<int> EnumValueFromName(const std::string& type, const std::string& name);

}  // namespace pypto::ir
