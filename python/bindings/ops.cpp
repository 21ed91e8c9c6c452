// The operator registry seen from Python: list the ops with their schemas and
// build type-checked calls.
#include "casters.h"
#include "pypto/ops/registry.h"

namespace pypto::python {

using namespace ops;

namespace {
const char* EffectName(ArgEffect e) {
  switch (e) {
    case ArgEffect::kRead: return "read";
    case ArgEffect::kWrite: return "write";
    case ArgEffect::kReadWrite: return "read_write";
  }
  return "?";
}
}  // namespace

void BindOps(py::module_& m) {
  py::class_<ArgSpec>(m, "ArgSpec")
      .def_readonly("name", &ArgSpec::name)
      .def_readonly("doc", &ArgSpec::doc)
      .def_readonly("variadic", &ArgSpec::variadic)
      .def_readonly("optional", &ArgSpec::optional);
  py::class_<KwargSpec>(m, "KwargSpec")
      .def_readonly("name", &KwargSpec::name)
      .def_property_readonly("kind", [](const KwargSpec& k) { return AttrKindName(k.kind); })
      .def_readonly("enum_type", &KwargSpec::enum_type)
      .def_property_readonly("default",
                             [](const KwargSpec& k) {
                               return k.default_value ? AttrValueToPy(*k.default_value) : py::none();
                             })
      .def_readonly("required", &KwargSpec::required)
      .def_readonly("doc", &KwargSpec::doc);
  py::class_<OpDef>(m, "OpDef")
      .def_property_readonly("name", &OpDef::name)
      .def_property_readonly("namespace", &OpDef::name_space)
      .def_property_readonly("category", [](const OpDef& d) { return OpCategoryName(d.category()); })
      .def_property_readonly("description", &OpDef::description)
      .def_property_readonly("args", &OpDef::args)
      .def_property_readonly("kwargs", &OpDef::kwargs)
      .def_property_readonly("placement", [](const OpDef& d) { return PlacementName(d.placement()); })
      .def_property_readonly("arg_effects",
                             [](const OpDef& d) {
                               py::dict out;
                               for (const auto& [i, e] : d.arg_effects()) out[py::int_(i)] = EffectName(e);
                               return out;
                             })
      .def_property_readonly("output_reuses_input", &OpDef::output_reuses_input)
      .def_property_readonly("signature", &OpDef::Signature)
      .def("__repr__", [](const OpDef& d) { return "<OpDef " + d.Signature() + ">"; });

  m.def("list", []() { return OpRegistry::Global().List(); }, py::return_value_policy::reference,
        "Every registered op, sorted by name.");
  m.def(
      "get", [](const std::string& name) { return &OpRegistry::Global().Get(name); }, py::arg("name"),
      py::return_value_policy::reference);
  m.def(
      "exists", [](const std::string& name) { return OpRegistry::Global().Find(name) != nullptr; }, py::arg("name"));
  m.def(
      "create",
      [](const std::string& name, const std::vector<ir::ExprPtr>& args, const ir::Attrs& kwargs, const Span& span) {
        return OpRegistry::Global().Create(name, args, kwargs, span);
      },
      py::arg("name"), py::arg("args"), py::arg("kwargs") = ir::Attrs(), py::arg("span") = Span(),
      "A type-checked call of a registered op.");
}

}  // namespace pypto::python
