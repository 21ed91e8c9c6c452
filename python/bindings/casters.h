// pybind11 conversions for the core's value types: IR nodes held as
// shared_ptr<const T>, Attrs as ordered dicts, and expression coercion of
// Python numbers.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "pypto/ir/ir.h"

namespace pypto::python {

namespace py = pybind11;

// Python value of an attribute (kwargs and compiler attrs).
py::object AttrValueToPy(const ir::AttrValue& value);
ir::AttrValue AttrValueFromPy(py::handle value, const std::string& key);
// An expression from an IR Expr, a Python int (INDEX), float (FP32) or bool.
ir::ExprPtr ToExpr(py::handle value);

}  // namespace pypto::python

namespace PYBIND11_NAMESPACE {
namespace detail {

// IR nodes are immutable and shared as shared_ptr<const T>; Python holds them
// through shared_ptr<T> (pybind11 has no const holders), which is safe
// because no binding exposes a mutator.
template <typename T>
struct type_caster<std::shared_ptr<const T>> {
  using holder_caster = copyable_holder_caster<T, std::shared_ptr<T>>;
  PYBIND11_TYPE_CASTER(std::shared_ptr<const T>, const_name<T>());

  bool load(handle src, bool convert) {
    if (src.is_none()) {
      value = nullptr;
      return true;
    }
    if constexpr (std::is_same_v<T, pypto::ir::Expr>) {
      if (!isinstance<pypto::ir::Expr>(src)) {
        if (PyBool_Check(src.ptr()) || PyLong_Check(src.ptr()) || PyFloat_Check(src.ptr())) {
          value = pypto::python::ToExpr(src);
          return true;
        }
      }
    }
    holder_caster inner;
    if (!inner.load(src, convert)) return false;
    value = std::const_pointer_cast<const T>(static_cast<std::shared_ptr<T>&>(inner));
    return true;
  }

  static handle cast(const std::shared_ptr<const T>& src, return_value_policy policy, handle parent) {
    if (!src) return none().release();
    return holder_caster::cast(std::const_pointer_cast<T>(src), policy, parent);
  }
};

template <>
struct type_caster<pypto::ir::Attrs> {
  PYBIND11_TYPE_CASTER(pypto::ir::Attrs, const_name("dict"));

  bool load(handle src, bool) {
    if (src.is_none()) return true;
    if (!PyDict_Check(src.ptr())) return false;
    for (auto item : reinterpret_borrow<dict>(src)) {
      std::string key = item.first.cast<std::string>();
      value.Set(key, pypto::python::AttrValueFromPy(item.second, key));
    }
    return true;
  }

  static handle cast(const pypto::ir::Attrs& src, return_value_policy, handle) {
    dict d;
    for (const auto& [key, v] : src) d[str(key)] = pypto::python::AttrValueToPy(v);
    return d.release();
  }
};

}  // namespace detail
}  // namespace PYBIND11_NAMESPACE
