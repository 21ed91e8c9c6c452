// pypto._core.backend: code generation by backend plugins, the compile
// output layout, and toolchains that build and run what was generated.
#include <pybind11/stl/filesystem.h>

#include "casters.h"
#include "pypto/backend/backend.h"
#include "pypto/backend/registry.h"
#include "pypto/backend/toolchain.h"
#include "pypto/runtime/tensor.h"
#include "tensor_import.h"

namespace pypto::python {

using backend::Artifact;
using backend::ArtifactKind;
using backend::Executable;
using backend::ProgramArg;
using backend::TraceOptions;

namespace {

std::vector<Artifact> Generate(const std::string& name, const std::shared_ptr<ir::Program>& program,
                               const std::string& platform) {
  auto generator = backend::BackendRegistry::Global().Create(name);
  backend::BackendContext ctx;
  ctx.set_platform(backend::Platform::Get(platform));
  return backend::RunBackend(*generator, program, ctx);
}

// The program arguments of one call, converted from Python: runtime.Tensor
// objects, arrays (torch, numpy, DLPack, buffer protocol) and scalars given as
// the int of their bit pattern. Torch tensors are borrowed (see
// TensorFromPythonBorrowed): the call holds the objects until it returns.
struct CallArgs {
  std::vector<ProgramArg> args;
  std::vector<py::handle> objects;
  std::vector<bool> borrowed;

  explicit CallArgs(const py::sequence& values) {
    for (auto value : values) {
      objects.push_back(value);
      if (PyLong_Check(value.ptr())) {
        args.push_back(ProgramArg::OfScalar(value.cast<int64_t>()));
        borrowed.push_back(false);
        continue;
      }
      bool is_borrowed = false;
      args.push_back(ProgramArg::OfTensor(TensorFromPythonBorrowed(value, &is_borrowed)));
      borrowed.push_back(is_borrowed);
    }
  }

  // A result as Python sees it: the argument object it is (same memory,
  // shape, strides and dtype), else a runtime.Tensor that keeps any borrowed
  // argument it shares memory with alive.
  py::object Result(const runtime::Tensor& result) const {
    for (size_t i = 0; i < args.size(); ++i) {
      const auto& arg = args[i].tensor;
      if (arg && SameView(*arg, result)) return py::reinterpret_borrow<py::object>(objects[i]);
    }
    for (size_t i = 0; i < args.size(); ++i) {
      if (!borrowed[i] || args[i].tensor->storage() != result.storage()) continue;
      return py::cast(runtime::Tensor::Wrap(result.data(), result.dtype(), {result.shape().begin(), result.shape().end()},
                                            {result.strides().begin(), result.strides().end()}, KeepAlive(objects[i])));
    }
    return py::cast(result);
  }

  static bool SameView(const runtime::Tensor& a, const runtime::Tensor& b) {
    return a.data() == b.data() && a.dtype() == b.dtype() && a.shape() == b.shape() && a.strides() == b.strides();
  }
};

py::list Run(Executable& executable, const std::string& entry, const py::sequence& values) {
  CallArgs call(values);
  std::vector<runtime::Tensor> results;
  {
    // Kernels run on worker threads; Python threads (and the tensors' deleters,
    // which take the GIL) must be able to run meanwhile.
    py::gil_scoped_release release;
    results = executable.Run(entry, call.args);
  }
  py::list out;
  for (const auto& result : results) out.append(call.Result(result));
  return out;
}

py::tuple RunTraced(Executable& executable, const std::string& entry, const py::sequence& values, int args_dump) {
  if (args_dump < 0 || args_dump > 2) {
    ThrowValueError("run_traced: args_dump must be 0 (none), 1 (tensors tagged with pl.dump_tag) or 2 (every "
                    "tensor argument), got " + std::to_string(args_dump));
  }
  CallArgs call(values);
  std::vector<runtime::Tensor> results;
  runtime::RunTrace trace;
  TraceOptions options;
  options.args_dump = static_cast<runtime::ArgsDump>(args_dump);
  {
    py::gil_scoped_release release;
    results = executable.RunTraced(entry, call.args, trace, options);
  }
  py::list out;
  for (const auto& result : results) out.append(call.Result(result));
  return py::make_tuple(out, std::move(trace));
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
           "Runs orchestration `entry` on args in parameter order: tensors (runtime.Tensor, torch.Tensor, "
           "numpy.ndarray or any DLPack or buffer-protocol array, shared, never copied) and scalars as the int of "
           "their bit pattern. Returns the program's results: a result that is one of the arguments as that "
           "argument object, others as runtime.Tensor. A kernel fault raises pypto.KernelFault.")
      .def("run_traced", &RunTraced, py::arg("entry"), py::arg("args"), py::arg("args_dump") = 0,
           "Runs like run() and returns (results, runtime.RunTrace): the tasks, their arguments, dependencies, "
           "per-core timings and counters, and the scopes. args_dump 1 or 2 also copies the tensor arguments of "
           "tasks (tagged with pl.dump_tag, or all) into TaskTrace.dumps. Only simulator toolchains can trace.");

  m.def(
      "build",
      [](const std::string& toolchain, const std::vector<Artifact>& artifacts, const std::string& platform,
         std::optional<std::filesystem::path> cache_dir, bool use_cache, int clusters, bool check_nan,
         bool check_pipe_hazards, std::map<std::string, std::vector<std::filesystem::path>> kernel_include_dirs) {
        backend::BuildOptions options;
        options.platform = platform;
        options.cache_dir = std::move(cache_dir);
        options.use_cache = use_cache;
        options.clusters = clusters;
        options.check_nan = check_nan;
        options.check_pipe_hazards = check_pipe_hazards;
        options.kernel_include_dirs = std::move(kernel_include_dirs);
        std::unique_ptr<Executable> built;
        {
          py::gil_scoped_release release;
          built = backend::GetToolchain(toolchain).Build(artifacts, options);
        }
        return std::shared_ptr<Executable>(std::move(built));
      },
      py::arg("toolchain"), py::arg("artifacts"), py::arg("platform"), py::kw_only(), py::arg("cache_dir") = py::none(),
      py::arg("use_cache") = true, py::arg("clusters") = 0, py::arg("check_nan") = false,
      py::arg("check_pipe_hazards") = false, py::arg("kernel_include_dirs") = std::map<std::string, std::vector<std::filesystem::path>>(),
      "Builds the artifacts with a toolchain for `platform`. cache_dir: where compiled kernels are cached (default "
      "$PYPTO_CACHE_DIR or ~/.cache/pypto); clusters: simulated clusters (0: one per hardware thread); check_nan: "
      "simulated kernels fault at the first instruction whose result holds a NaN; check_pipe_hazards: simulated "
      "runs fault at the first access no pipe event orders after a conflicting one; kernel_include_dirs: function "
      "name -> further #include folders of its kernel (an external kernel's include_dirs=).");
}

}  // namespace pypto::python
