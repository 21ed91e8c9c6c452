// pypto._core.backend: code generation by backend plugins, the compile
// output layout, and toolchains that build and run what was generated.
#include <pybind11/stl/filesystem.h>

#include "casters.h"
#include "pypto/backend/backend.h"
#include "pypto/backend/registry.h"
#include "pypto/backend/toolchain.h"
#include "pypto/runtime/tensor.h"

namespace pypto::python {

using backend::Artifact;
using backend::ArtifactKind;
using backend::Executable;
using backend::ProgramArg;

namespace {

std::vector<Artifact> Generate(const std::string& name, const std::shared_ptr<ir::Program>& program,
                               const std::string& platform) {
  auto generator = backend::BackendRegistry::Global().Create(name);
  backend::BackendContext ctx;
  ctx.set_platform(backend::Platform::Get(platform));
  return backend::RunBackend(*generator, program, ctx);
}

// A Python argument of a program: a runtime.Tensor (or anything it wraps) or
// the 64-bit pattern of a scalar, which the caller encodes by dtype.
ProgramArg ToProgramArg(py::handle value) {
  if (py::isinstance<py::int_>(value)) return ProgramArg::OfScalar(value.cast<int64_t>());
  return ProgramArg::OfTensor(value.cast<runtime::Tensor>());
}

std::vector<runtime::Tensor> Run(Executable& executable, const std::string& entry, const py::sequence& args) {
  std::vector<ProgramArg> converted;
  for (auto item : args) converted.push_back(ToProgramArg(item));
  // Kernels run on worker threads; Python threads (and the tensors' deleters,
  // which take the GIL) must be able to run meanwhile.
  py::gil_scoped_release release;
  return executable.Run(entry, converted);
}

}  // namespace

void BindBackend(py::module_& m) {
  py::enum_<ArtifactKind>(m, "ArtifactKind")
      .value("KernelSource", ArtifactKind::kKernelSource)
      .value("OrchestrationIR", ArtifactKind::kOrchestrationIR)
      .value("Report", ArtifactKind::kReport)
      .value("Debug", ArtifactKind::kDebug);

  py::class_<Artifact>(m, "Artifact", "One file of the compile output, in memory.")
      .def(py::init([](std::string path, ArtifactKind kind, std::string text, std::string function,
                       std::optional<ir::FunctionType> core) {
             return Artifact{std::move(path), kind, core, std::move(function), std::move(text)};
           }),
           py::arg("path"), py::arg("kind"), py::arg("text"), py::arg("function") = "", py::arg("core") = py::none())
      .def_readonly("path", &Artifact::path)
      .def_readonly("kind", &Artifact::kind)
      .def_readonly("core", &Artifact::core)
      .def_readonly("function", &Artifact::function)
      .def_readonly("text", &Artifact::text)
      .def("__repr__", [](const Artifact& a) { return "Artifact('" + a.path + "', " + std::to_string(a.text.size()) + " chars)"; });

  m.def("generate", &Generate, py::arg("backend"), py::arg("program"), py::arg("platform"),
        "Runs backend plugin `backend` on a lowered program; returns its artifacts (files of the output layout).");
  m.def("write_artifacts", &backend::WriteArtifacts, py::arg("output_dir"), py::arg("artifacts"),
        "Writes the artifacts under output_dir (each file atomically); returns the paths written.");
  m.def("toolchain_for", &backend::ToolchainFor, py::arg("backend"), py::arg("platform"),
        "The toolchain backend `backend`'s manifest names for `platform` (simulator, ascend).");
  m.def("toolchain_unavailable", [](const std::string& name) { return backend::GetToolchain(name).Unavailable(); },
        py::arg("toolchain"), "Empty when the toolchain can build and run here, else what is missing.");
  m.def("kernel_include_dirs", &backend::KernelIncludeDirs,
        "The folders simulated kernels compile against (the SDK's tile ISA and the runtime's C API).");

  py::class_<backend::BuildStats>(m, "BuildStats")
      .def_readonly("kernels", &backend::BuildStats::kernels)
      .def_readonly("from_cache", &backend::BuildStats::from_cache)
      .def_readonly("seconds", &backend::BuildStats::seconds);

  py::class_<Executable, std::shared_ptr<Executable>>(m, "Executable",
                                                     "A built program: kernels and orchestration linked in the process.")
      .def_property_readonly("entries", &Executable::entries)
      .def_property_readonly("build_stats", &Executable::build_stats)
      .def("run", &Run, py::arg("entry"), py::arg("args"),
           "Runs orchestration `entry`; args are runtime.Tensor objects and scalar bit patterns (int), in parameter "
           "order. Returns the program's results. A kernel fault raises pypto.KernelFault.");

  m.def(
      "build",
      [](const std::string& toolchain, const std::vector<Artifact>& artifacts, const std::string& platform,
         std::optional<std::filesystem::path> cache_dir, bool use_cache, int clusters) {
        backend::BuildOptions options;
        options.platform = platform;
        options.cache_dir = std::move(cache_dir);
        options.use_cache = use_cache;
        options.clusters = clusters;
        std::unique_ptr<Executable> built;
        {
          py::gil_scoped_release release;
          built = backend::GetToolchain(toolchain).Build(artifacts, options);
        }
        return std::shared_ptr<Executable>(std::move(built));
      },
      py::arg("toolchain"), py::arg("artifacts"), py::arg("platform"), py::kw_only(), py::arg("cache_dir") = py::none(),
      py::arg("use_cache") = true, py::arg("clusters") = 0,
      "Builds the artifacts with a toolchain for `platform`. cache_dir: where compiled kernels are cached (default "
      "$PYPTO_CACHE_DIR or ~/.cache/pypto); clusters: simulated clusters (0: one per hardware thread).");
}

}  // namespace pypto::python
