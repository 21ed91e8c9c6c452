#include "pypto/pass/pass.h"

#include "pypto/support/strings.h"

namespace pypto::pass {

const char* IRPropertyName(IRProperty p) {
  switch (p) {
#define PYPTO_X(name, doc) \
  case IRProperty::name:   \
    return #name;
    PYPTO_IR_PROPERTIES(PYPTO_X)
#undef PYPTO_X
    case IRProperty::kCount:
      break;
  }
  return "<invalid IRProperty>";
}

const char* IRPropertyDescription(IRProperty p) {
  switch (p) {
#define PYPTO_X(name, doc) \
  case IRProperty::name:   \
    return doc;
    PYPTO_IR_PROPERTIES(PYPTO_X)
#undef PYPTO_X
    case IRProperty::kCount:
      break;
  }
  return "<invalid IRProperty>";
}

std::optional<IRProperty> IRPropertyFromName(const std::string& name) {
  for (size_t i = 0; i < static_cast<size_t>(IRProperty::kCount); ++i) {
    auto p = static_cast<IRProperty>(i);
    if (name == IRPropertyName(p)) return p;
  }
  return std::nullopt;
}

std::vector<IRProperty> PropertySet::ToVector() const {
  std::vector<IRProperty> out;
  for (size_t i = 0; i < bits_.size(); ++i) {
    if (bits_.test(i)) out.push_back(static_cast<IRProperty>(i));
  }
  return out;
}

std::string PropertySet::ToString() const {
  return JoinMapped(ToVector(), ", ", [](IRProperty p) { return IRPropertyName(p); });
}

const char* PassOptionKindName(PassOptionSpec::Kind kind) {
  switch (kind) {
    case PassOptionSpec::Kind::kBool: return "bool";
    case PassOptionSpec::Kind::kInt: return "int";
    case PassOptionSpec::Kind::kFloat: return "float";
    case PassOptionSpec::Kind::kString: return "str";
  }
  return "<invalid option kind>";
}

}  // namespace pypto::pass
