// Keyword arguments of op calls and compiler attributes: an ordered list of
// (name, value) pairs whose values are one of a closed set of kinds, so that
// they print, compare, hash and serialize without type erasure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "pypto/ir/dtype.h"
#include "pypto/ir/enums.h"
#include "pypto/ir/node.h"

namespace pypto::ir {

class Expr;
using ExprPtr = Ref<Expr>;

using AttrValue = std::variant<bool, int64_t, double, std::string, DataType, EnumAttr, ExprPtr,
                               std::vector<int64_t>, std::vector<std::string>, std::vector<ExprPtr>>;

// Names of the AttrValue alternatives, in order, for error messages.
const char* AttrValueKindName(const AttrValue& value);

class Attrs {
 public:
  using Entry = std::pair<std::string, AttrValue>;

  Attrs() = default;
  Attrs(std::initializer_list<Entry> entries) : entries_(entries) {}

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<Entry>& mutable_entries() { return entries_; }

  bool Has(const std::string& key) const { return Find(key) != nullptr; }
  const AttrValue* Find(const std::string& key) const;
  // Replaces an existing value in place (keeping order) or appends.
  void Set(const std::string& key, AttrValue value);
  void Erase(const std::string& key);

  template <class T>
  std::optional<T> Get(const std::string& key) const {
    const AttrValue* v = Find(key);
    if (v == nullptr) return std::nullopt;
    if (const T* t = std::get_if<T>(v)) return *t;
    return std::nullopt;
  }
  template <class E>
  std::optional<E> GetEnum(const std::string& key) const {
    auto e = Get<EnumAttr>(key);
    if (!e) return std::nullopt;
    return e->As<E>();
  }

 private:
  std::vector<Entry> entries_;
};

}  // namespace pypto::ir
