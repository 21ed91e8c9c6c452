#include "pypto/ir/attrs.h"

#include <algorithm>

namespace pypto::ir {

const char* AttrValueKindName(const AttrValue& value) {
  static const char* kNames[] = {"bool", "int", "float", "str", "DataType", "enum", "Expr",
                                 "list[int]", "list[str]", "list[Expr]"};
  return kNames[value.index()];
}

const AttrValue* Attrs::Find(const std::string& key) const {
  for (const auto& [k, v] : entries_) {
    if (k == key) return &v;
  }
  return nullptr;
}

void Attrs::Set(const std::string& key, AttrValue value) {
  for (auto& [k, v] : entries_) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  entries_.emplace_back(key, std::move(value));
}

void Attrs::Erase(const std::string& key) {
  entries_.erase(std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.first == key; }),
                 entries_.end());
}

}  // namespace pypto::ir
