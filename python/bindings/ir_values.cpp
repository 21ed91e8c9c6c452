// Python faces of the IR's value types: DataType, the enums, Span,
// TensorView, and the conversions of attribute values.
#include "casters.h"
#include "pypto/ir/enums.h"
#include "pypto/support/error.h"

namespace pypto::python {

using namespace ir;

namespace {

template <class E>
void BindEnum(py::module_& m) {
  py::enum_<E> e(m, EnumInfo<E>::kName);
  for (const auto& [value, name] : EnumInfo<E>::Values()) e.value(name, value);
}

template <class E>
bool TryEnumAttr(py::handle value, std::optional<EnumAttr>& out) {
  if (!py::isinstance<E>(value)) return false;
  out = EnumAttr::Of(value.cast<E>());
  return true;
}

std::optional<EnumAttr> EnumAttrFromPy(py::handle value) {
  std::optional<EnumAttr> out;
#define PYPTO_X(EnumT, PyName, VALUES) \
  if (TryEnumAttr<EnumT>(value, out)) return out;
  PYPTO_IR_ENUMS(PYPTO_X)
#undef PYPTO_X
  return std::nullopt;
}

template <class E>
bool TryEnumToPy(const EnumAttr& attr, py::object& out) {
  auto v = attr.As<E>();
  if (!v) return false;
  out = py::cast(*v);
  return true;
}

}  // namespace

py::object AttrValueToPy(const AttrValue& value) {
  if (const auto* e = std::get_if<EnumAttr>(&value)) {
    py::object out;
#define PYPTO_X(EnumT, PyName, VALUES) \
  if (TryEnumToPy<EnumT>(*e, out)) return out;
    PYPTO_IR_ENUMS(PYPTO_X)
#undef PYPTO_X
    return py::str(e->ToString());
  }
  return std::visit([](const auto& v) { return py::cast(v); }, value);
}

AttrValue AttrValueFromPy(py::handle value, const std::string& key) {
  if (PyBool_Check(value.ptr())) return value.cast<bool>();
  if (PyLong_Check(value.ptr())) return value.cast<int64_t>();
  if (PyFloat_Check(value.ptr())) return value.cast<double>();
  if (PyUnicode_Check(value.ptr())) return value.cast<std::string>();
  if (py::isinstance<DataType>(value)) return value.cast<DataType>();
  if (auto e = EnumAttrFromPy(value)) return *e;
  if (py::isinstance<Expr>(value)) return value.cast<ExprPtr>();
  if (PyList_Check(value.ptr()) || PyTuple_Check(value.ptr())) {
    auto seq = py::reinterpret_borrow<py::sequence>(value);
    bool all_int = true, all_str = true;
    for (auto item : seq) {
      all_int &= PyLong_Check(item.ptr()) && !PyBool_Check(item.ptr());
      all_str &= PyUnicode_Check(item.ptr()) != 0;
    }
    if (all_int) return seq.cast<std::vector<int64_t>>();
    if (all_str) return seq.cast<std::vector<std::string>>();
    std::vector<ExprPtr> exprs;
    for (auto item : seq) exprs.push_back(ToExpr(item));
    return exprs;
  }
  ThrowTypeError("attribute '" + key + "' cannot hold a Python " +
                 py::str(py::type::of(value).attr("__name__")).cast<std::string>() +
                 "; use bool, int, float, str, a dtype, a pl enum, an IR expression or a list of those");
}

ExprPtr ToExpr(py::handle value) {
  if (value.is_none()) return nullptr;
  if (PyBool_Check(value.ptr())) return ConstBool::Make(value.cast<bool>());
  if (PyLong_Check(value.ptr())) return ConstInt::Make(value.cast<int64_t>());
  if (PyFloat_Check(value.ptr())) return ConstFloat::Make(value.cast<double>());
  if (py::isinstance<Expr>(value)) return std::const_pointer_cast<const Expr>(value.cast<std::shared_ptr<Expr>>());
  ThrowTypeError("expected an IR expression or a Python number, got a " +
                 py::str(py::type::of(value).attr("__name__")).cast<std::string>());
}

void BindIRValues(py::module_& m) {
  py::class_<DataType> dt(m, "DataType");
  for (const auto& d : DataType::All()) dt.def_readonly_static(d.name(), &d);
  dt.def_property_readonly("name", &DataType::name)
      .def_property_readonly("bits", &DataType::bits)
      .def_property_readonly("code", [](const DataType& d) { return static_cast<int>(d.code()); })
      .def("get_byte", &DataType::get_byte, "Bytes of one element (4-bit types round up to 1).")
      .def("storage_bytes", &DataType::StorageBytes, py::arg("count"),
           "Bytes of `count` packed elements (4-bit types pack two per byte).")
      .def("is_float", &DataType::is_float)
      .def("is_int", &DataType::is_int)
      .def("is_signed_int", &DataType::is_signed_int)
      .def("is_unsigned_int", &DataType::is_unsigned_int)
      .def("is_bool", &DataType::is_bool)
      .def_static("from_name", [](const std::string& name) {
        auto d = DataType::FromName(name);
        if (!d) ThrowValueError("unknown dtype '" + name + "'");
        return *d;
      })
      .def_static("all", &DataType::All)
      .def("__eq__", [](const DataType& a, const DataType& b) { return a == b; })
      .def("__hash__", [](const DataType& a) { return static_cast<int>(a.code()); })
      .def("__repr__", [](const DataType& d) { return std::string("pl.") + d.name(); });
  m.def("promote_types", &PromoteTypes, py::arg("a"), py::arg("b"));

#define PYPTO_X(EnumT, PyName, VALUES) BindEnum<EnumT>(m);
  PYPTO_IR_ENUMS(PYPTO_X)
#undef PYPTO_X

  py::enum_<BinaryOp> bin(m, "BinaryOp");
#define PYPTO_X(name, sym, cmp) bin.value(#name, BinaryOp::name);
  PYPTO_BINARY_OPS(PYPTO_X)
#undef PYPTO_X
  py::enum_<UnaryOp> un(m, "UnaryOp");
#define PYPTO_X(name, sym) un.value(#name, UnaryOp::name);
  PYPTO_UNARY_OPS(PYPTO_X)
#undef PYPTO_X

  py::class_<Span>(m, "Span")
      .def(py::init<std::string, int, int, int, int>(), py::arg("filename") = "", py::arg("begin_line") = 0,
           py::arg("begin_col") = 0, py::arg("end_line") = 0, py::arg("end_col") = 0)
      .def_readonly("filename", &Span::filename)
      .def_readonly("begin_line", &Span::begin_line)
      .def_readonly("begin_col", &Span::begin_col)
      .def_readonly("end_line", &Span::end_line)
      .def_readonly("end_col", &Span::end_col)
      .def("known", &Span::known)
      .def("__eq__", [](const Span& a, const Span& b) { return a == b; })
      .def("__repr__", &Span::ToString);

  py::class_<TensorView>(m, "TensorView")
      .def(py::init([](py::object strides, py::object valid_shape, PadValue pad) {
             TensorView v;
             if (!strides.is_none())
               for (auto s : strides) v.strides.push_back(ToExpr(s));
             if (!valid_shape.is_none())
               for (auto s : valid_shape) v.valid_shape.push_back(ToExpr(s));
             v.pad = pad;
             return v;
           }),
           py::arg("strides") = py::none(), py::arg("valid_shape") = py::none(), py::arg("pad") = PadValue::Null)
      .def_readonly("strides", &TensorView::strides)
      .def_readonly("valid_shape", &TensorView::valid_shape)
      .def_readonly("pad", &TensorView::pad);
}

}  // namespace pypto::python
