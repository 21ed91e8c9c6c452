#include "pypto/ir/enums.h"

namespace pypto::ir {

#define PYPTO_ENUM_ENTRY(cpp, py, val) {Type::cpp, #py},
#define PYPTO_DEFINE_ENUM(EnumT, PyName, VALUES)                                   \
  const std::vector<std::pair<EnumT, const char*>>& EnumInfo<EnumT>::Values() {     \
    using Type = EnumT;                                                            \
    static const std::vector<std::pair<EnumT, const char*>> values = {VALUES(PYPTO_ENUM_ENTRY)}; \
    return values;                                                                 \
  }                                                                                \
  const char* ToString(EnumT v) {                                                  \
    for (const auto& [value, text] : EnumInfo<EnumT>::Values()) {                  \
      if (value == v) return text;                                                 \
    }                                                                              \
    return "?";                                                                    \
  }
PYPTO_IR_ENUMS(PYPTO_DEFINE_ENUM)
#undef PYPTO_DEFINE_ENUM
#undef PYPTO_ENUM_ENTRY

namespace {
template <class E>
std::optional<std::string> NameIn(int value) {
  for (const auto& [v, text] : EnumInfo<E>::Values()) {
    if (static_cast<int>(v) == value) return std::string(text);
  }
  return std::nullopt;
}
template <class E>
std::optional<int> ValueIn(const std::string& name) {
  auto v = EnumFromString<E>(name);
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}
}  // namespace

std::optional<std::string> EnumValueName(const std::string& type, int value) {
#define PYPTO_X(EnumT, PyName, VALUES) \
  if (type == #PyName) return NameIn<EnumT>(value);
  PYPTO_IR_ENUMS(PYPTO_X)
#undef PYPTO_X
  return std::nullopt;
}

std::optional<int> EnumValueFromName(const std::string& type, const std::string& name) {
#define PYPTO_X(EnumT, PyName, VALUES) \
  if (type == #PyName) return ValueIn<EnumT>(name);
  PYPTO_IR_ENUMS(PYPTO_X)
#undef PYPTO_X
  return std::nullopt;
}

std::string EnumAttr::ToString() const {
  if (auto name = EnumValueName(type, value)) return type + "." + *name;
  return type + "(" + std::to_string(value) + ")";
}

}  // namespace pypto::ir
