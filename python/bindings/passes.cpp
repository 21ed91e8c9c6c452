// Passes and pipelines seen from Python: load a pipeline by name or path,
// run it over a program with dumping, verification and timing.
#include "casters.h"
#include "pypto/backend/platform.h"
#include "pypto/pass/instruments.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/pipeline.h"
#include "pypto/pass/registry.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::python {

using namespace pass;

namespace {

PropertySet PropertiesFromNames(const std::vector<std::string>& names) {
  PropertySet set;
  for (const auto& name : names) {
    auto property = IRPropertyFromName(name);
    if (!property) ThrowValueError("unknown IR property '" + name + "'; see pypto.passes.PROPERTIES");
    set.Add(*property);
  }
  return set;
}

std::vector<std::string> PropertyNames(const PropertySet& set) {
  std::vector<std::string> names;
  for (auto p : set.ToVector()) names.emplace_back(IRPropertyName(p));
  return names;
}

py::dict PipelineToDict(const Pipeline& p) {
  py::dict d;
  d["name"] = p.name;
  d["description"] = p.description;
  d["verify"] = p.verify;
  d["source"] = p.source;
  d["input_properties"] = PropertyNames(p.input_properties);
  py::list steps;
  for (const auto& s : p.steps) {
    py::dict step;
    step["pass"] = s.pass;
    step["options"] = py::cast(s.options);
    steps.append(step);
  }
  d["passes"] = steps;
  return d;
}

}  // namespace

namespace {

// Options given in code win over the pipeline file's for each step of the named pass;
// they are validated like the file's, when the PassManager builds the passes.
Pipeline WithOptionOverrides(Pipeline pipeline, const py::dict& overrides) {
  for (const auto& [pass_name, values] : overrides) {
    std::string name = py::cast<std::string>(pass_name);
    bool found = false;
    for (auto& step : pipeline.steps) {
      if (step.pass != name) continue;
      found = true;
      for (const auto& [key, value] : py::cast<py::dict>(values)) {
        std::string option = py::cast<std::string>(key);
        step.options.Set(option, AttrValueFromPy(value, option));
      }
    }
    if (!found) {
      throw Error(ErrorKind::kPipeline, "options given for pass '" + name + "', which pipeline '" + pipeline.name +
                                            "' does not run; its passes are " + Join(pipeline.pass_names(), ", "));
    }
  }
  return pipeline;
}

}  // namespace

void BindPasses(py::module_& m) {
  py::dict properties;
  for (size_t i = 0; i < static_cast<size_t>(IRProperty::kCount); ++i) {
    auto p = static_cast<IRProperty>(i);
    properties[py::str(IRPropertyName(p))] = IRPropertyDescription(p);
  }
  m.attr("PROPERTIES") = properties;

  py::class_<PassInstrument, std::shared_ptr<PassInstrument>>(m, "PassInstrument")
      .def_property_readonly("name", &PassInstrument::name);
  py::class_<TimingInstrument, PassInstrument, std::shared_ptr<TimingInstrument>>(m, "TimingInstrument")
      .def(py::init<>())
      .def("report", &TimingInstrument::Report, "Per-pass wall time as a text table.")
      .def("to_json", &TimingInstrument::ToJson)
      .def_property_readonly("total_milliseconds", &TimingInstrument::total_milliseconds);
  py::class_<DiagnosticsInstrument, PassInstrument, std::shared_ptr<DiagnosticsInstrument>>(m, "DiagnosticsInstrument")
      .def(py::init<>())
      .def_property_readonly("diagnostics", &DiagnosticsInstrument::diagnostics,
                             "Warnings and performance hints the passes of the last run reported, in order.")
      .def_property_readonly(
          "perf_hints", [](const DiagnosticsInstrument& d) { return d.OfSeverity(ir::Diagnostic::Severity::kPerfHint); },
          "Only the performance hints.")
      .def_property_readonly(
          "warnings", [](const DiagnosticsInstrument& d) { return d.OfSeverity(ir::Diagnostic::Severity::kWarning); },
          "Only the warnings.");

  m.def(
      "pass_properties",
      [](const std::string& name) {
        auto pass = PassRegistry::Global().Create(name);
        py::dict d;
        d["required"] = PropertyNames(pass->required());
        d["produced"] = PropertyNames(pass->produced());
        d["invalidated"] = PropertyNames(pass->invalidated());
        return d;
      },
      py::arg("name"),
      "The IR properties the pass `name` requires, produces and invalidates, as lists of names; loads the plugin "
      "that provides it. An unknown name is a PipelineError listing the known passes.");
  m.def("list_pipelines", &ListPipelines, "Names of the pipelines shipped with PyPTO.");
  m.def(
      "load_pipeline", [](const std::string& name_or_path) { return PipelineToDict(LoadPipeline(name_or_path)); },
      py::arg("name_or_path"), "A pipeline file as a dict (name, description, verify, passes).");

  py::class_<PassManager>(m, "PassManager")
      .def(py::init([](const std::string& name_or_path, const py::dict& options) {
             return PassManager(WithOptionOverrides(LoadPipeline(name_or_path), options));
           }),
           py::arg("pipeline"), py::arg("options") = py::dict(),
           "Builds every pass of a pipeline, given by name (`default`) or YAML path. `options` maps a pass name "
           "to option values that replace the file's for every step of that pass, e.g. "
           "{\"AutoDeriveTaskDependencies\": {\"analyze_auto_scopes_for_deps\": True}}.")
      .def_property_readonly("pass_names", &PassManager::pass_names)
      .def_property_readonly("pipeline", [](const PassManager& pm) { return PipelineToDict(pm.pipeline()); })
      .def(
          "run",
          [](PassManager& pm, const std::shared_ptr<ir::Program>& program, std::optional<std::filesystem::path> dump_dir,
             std::optional<bool> verify, std::vector<std::string> input_properties,
             std::vector<std::shared_ptr<PassInstrument>> instruments, const std::string& platform) {
            PassContext ctx;
            ctx.set_platform(backend::Platform::Get(platform));
            if (dump_dir) ctx.set_dump_dir(*dump_dir);
            if (verify) ctx.set_verify(*verify);
            ctx.set_properties(PropertiesFromNames(input_properties));
            for (auto& inst : instruments) ctx.AddInstrument(inst);
            return pm.Run(program, ctx);
          },
          py::arg("program"), py::kw_only(), py::arg("dump_dir") = py::none(), py::arg("verify") = py::none(),
          py::arg("input_properties") = std::vector<std::string>(),
          py::arg("instruments") = std::vector<std::shared_ptr<PassInstrument>>(),
          py::arg("platform") = std::string(backend::Platform::kDefaultName),
          "Runs the pipeline for `platform` (capacities, casts and moves come from it). dump_dir writes "
          "passes_dump/NN_<Pass>.py after every pass; verify runs the verifier between passes (default: the "
          "pipeline file's `verify`).");
}

}  // namespace pypto::python
