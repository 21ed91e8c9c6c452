// Generic access to node fields, the basis of the visitor, the mutator,
// structural equality and hashing, and serialization.
//
// Every concrete node class T has `template <class F> void ForEachField(F&& f)`
// calling `f(name, field, role)` once per field, in a fixed order. Field types
// are drawn from a closed set: arithmetic values, std::string, DataType, IR
// enums, Ref<node>, Attrs, reflectable structs (TensorView), and std::vector
// and std::optional of those.
#pragma once

#include <optional>
#include <type_traits>
#include <vector>

#include "pypto/ir/ir.h"
#include "pypto/support/error.h"

namespace pypto::ir {

template <class T>
struct IsRef : std::false_type {};
template <class T>
struct IsRef<std::shared_ptr<const T>> : std::true_type {
  using element = T;
};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// True for plain structs that list their fields (TensorView).
template <class T, class = void>
struct IsReflectableStruct : std::false_type {};
template <class T>
struct IsReflectableStruct<T, std::void_t<decltype(std::declval<T&>().ForEachField(
                                  [](const char*, auto&, FieldRole) {}))>>
    : std::bool_constant<!std::is_base_of_v<Node, T>> {};

// Calls `f(node_as_concrete_class)`; every case must return the same type.
template <class F>
decltype(auto) DispatchNode(const Node& node, F&& f) {
  switch (node.kind()) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return f(static_cast<const T&>(node));
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  }
  ThrowInternalError("unknown node kind");
}

// Calls `f(name, field, role)` for every field of a node (or reflectable struct).
// Fields are passed as const references.
template <class T, class F>
void ForEachFieldOf(const T& node, F&& f) {
  const_cast<T&>(node).ForEachField(
      [&f](const char* name, auto& field, FieldRole role) { f(name, std::as_const(field), role); });
}

// Calls `f(name, field_of_a, field_of_b, role)` for two objects of one class.
template <class T, class F>
void ForEachFieldPair(const T& a, const T& b, F&& f) {
  std::vector<const void*> b_fields;
  const_cast<T&>(b).ForEachField(
      [&b_fields](const char*, auto& field, FieldRole) { b_fields.push_back(&field); });
  size_t index = 0;
  const_cast<T&>(a).ForEachField([&](const char* name, auto& field, FieldRole role) {
    using FieldT = std::remove_reference_t<decltype(field)>;
    f(name, std::as_const(field), *static_cast<const FieldT*>(b_fields[index++]), role);
  });
}

}  // namespace pypto::ir
