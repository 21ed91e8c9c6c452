// Module-level IR functions: printing, structural equality and hashing,
// serialization and verification.
#include "casters.h"
#include "pypto/ir/call_types.h"
#include "pypto/ir/printer.h"
#include "pypto/ir/serialize.h"
#include "pypto/ir/structural.h"
#include "pypto/ir/verifier.h"

namespace pypto::python {

using namespace ir;

namespace {
NodePtr AsConst(const std::shared_ptr<Node>& n) { return n; }
}  // namespace

void BindIRFunctions(py::module_& m) {
  m.def(
      "as_python",
      [](const std::shared_ptr<Node>& node, const std::string& prefix, bool concise) {
        PrintOptions options;
        options.prefix = prefix;
        options.concise = concise;
        if (auto program = As<Program>(AsConst(node))) return PrintProgram(program, options);
        if (auto function = As<Function>(AsConst(node))) return PrintFunction(function, options);
        return PrintNode(node, options);
      },
      py::arg("node"), py::arg("prefix") = "pl", py::arg("concise") = false,
      "The node printed as Python DSL text (a Program in @pl.program form).");

  m.def(
      "structural_equal",
      [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b, bool enable_auto_mapping) {
        return StructuralEqual(a, b, enable_auto_mapping);
      },
      py::arg("a"), py::arg("b"), py::arg("enable_auto_mapping") = false);
  m.def(
      "structural_hash",
      [](const std::shared_ptr<Node>& n, bool enable_auto_mapping) { return StructuralHash(n, enable_auto_mapping); },
      py::arg("node"), py::arg("enable_auto_mapping") = false);
  m.def(
      "structural_diff",
      [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b, bool enable_auto_mapping) {
        return StructuralDiff(a, b, enable_auto_mapping);
      },
      py::arg("a"), py::arg("b"), py::arg("enable_auto_mapping") = false);
  m.def(
      "assert_structural_equal",
      [](const std::shared_ptr<Node>& a, const std::shared_ptr<Node>& b, bool enable_auto_mapping) {
        AssertStructuralEqual(a, b, enable_auto_mapping);
      },
      py::arg("a"), py::arg("b"), py::arg("enable_auto_mapping") = false);

  m.def(
      "call_site_return_types",
      [](const std::vector<VarPtr>& params, const std::vector<TypePtr>& return_types,
         const std::vector<ExprPtr>& args) { return CallSiteReturnTypes(params, return_types, args); },
      py::arg("params"), py::arg("return_types"), py::arg("args"),
      "A callee's return types as seen at a call site: its parameters (and the dim variables of their types) "
      "replaced by what the call passes.");
  m.def("serialize", [](const std::shared_ptr<Node>& n) {
    auto bytes = Serialize(n);
    return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  });
  m.def("deserialize", [](const py::bytes& data) {
    std::string s = data;
    return Deserialize(std::vector<uint8_t>(s.begin(), s.end()));
  });
  m.def(
      "save", [](const std::shared_ptr<Node>& n, const std::filesystem::path& path) { SaveToFile(n, path); },
      py::arg("node"), py::arg("path"));
  m.def("load", &LoadFromFile, py::arg("path"));
  m.def(
      "to_json", [](const std::shared_ptr<Node>& n, int indent) { return SerializeToJson(n, indent); },
      py::arg("node"), py::arg("indent") = 2);

  py::class_<Diagnostic>(m, "Diagnostic")
      .def_readonly("rule", &Diagnostic::rule)
      .def_readonly("code", &Diagnostic::code)
      .def_readonly("function", &Diagnostic::function)
      .def_readonly("node", &Diagnostic::node)
      .def_readonly("message", &Diagnostic::message)
      .def_readonly("fix", &Diagnostic::fix)
      .def_readonly("span", &Diagnostic::span)
      .def_property_readonly(
          "severity", [](const Diagnostic& d) { return SeverityName(d.severity); },
          "\"error\", \"warning\" or \"perf_hint\".")
      .def_property_readonly("is_error",
                             [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kError; })
      .def_property_readonly("is_perf_hint",
                             [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::kPerfHint; })
      .def("__str__", &Diagnostic::ToString)
      .def("__repr__", &Diagnostic::ToString);
  auto options = [](bool ssa, bool type_check, bool placement) {
    VerifyOptions o;
    o.ssa = ssa;
    o.type_check = type_check;
    o.placement = placement;
    return o;
  };
  m.def(
      "verify",
      [options](const std::shared_ptr<Program>& program, bool ssa, bool type_check, bool placement) {
        return Verify(program, options(ssa, type_check, placement));
      },
      py::arg("program"), py::arg("ssa") = true, py::arg("type_check") = true, py::arg("placement") = true,
      "Every invariant violation of the program, as Diagnostics.");
  m.def(
      "verify_or_raise",
      [options](const std::shared_ptr<Program>& program, bool ssa, bool type_check, bool placement) {
        VerifyOrThrow(program, options(ssa, type_check, placement));
      },
      py::arg("program"), py::arg("ssa") = true, py::arg("type_check") = true, py::arg("placement") = true);
}

}  // namespace pypto::python
