// pypto._core: the one extension module. The Python package re-exports its
// pieces under pypto.ir, pypto.ops, pypto.plugins and pypto.passes.
#include "casters.h"
#include "pypto/version.h"

namespace pypto::python {

void BindErrors(py::module_& m);
void BindIRValues(py::module_& m);
void BindIRNodes(py::module_& m);
void BindIRFunctions(py::module_& m);
void BindOps(py::module_& m);
void BindPlugins(py::module_& m);
void BindPasses(py::module_& m);
void BindPlatforms(py::module_& m);
void BindRuntime(py::module_& m);
void BindBackend(py::module_& m);
void BindComm(py::module_& m);

}  // namespace pypto::python

PYBIND11_MODULE(_core, m) {
  using namespace pypto::python;
  m.doc() = "PyPTO core: IR, operator registry, plugin host and pass manager";
  m.attr("__version__") = PYPTO_VERSION_STRING;
  BindErrors(m);
  auto ir = m.def_submodule("ir", "IR node classes, printing, equality, serialization, verification");
  BindIRValues(ir);
  BindIRNodes(ir);
  BindIRFunctions(ir);
  auto ops = m.def_submodule("ops", "The operator registry");
  BindOps(ops);
  auto plugins = m.def_submodule("plugins", "Plugin discovery and loading; passes and pipelines");
  BindPlugins(plugins);
  auto passes = m.def_submodule("passes", "Pass pipelines and the pass manager");
  BindPasses(passes);
  auto platforms = m.def_submodule("platforms", "The SoC descriptions passes compile against");
  BindPlatforms(platforms);
  auto runtime = m.def_submodule("runtime", "Tensors shared with torch and numpy; the task runtime");
  BindRuntime(runtime);
  auto backend = m.def_submodule("backend", "Code generation by backend plugins, toolchains, built programs");
  BindBackend(backend);
  BindComm(m);
}
