// Plugins, passes and backends seen from Python: discovery, explicit
// loading, search paths, and the passes, backends and comm engines the plugins provide.
#include "casters.h"
#include "pypto/backend/registry.h"
#include "pypto/comm/registry.h"
#include "pypto/pass/registry.h"
#include "pypto/plugin/host.h"

namespace pypto::python {

using namespace plugin;

namespace {
// A dim is its size, or its symbol's name.
py::list ShapeToList(const std::vector<KernelDim>& shape) {
  py::list dims;
  for (const auto& dim : shape) {
    if (dim.is_static()) {
      dims.append(dim.size);
    } else {
      dims.append(dim.symbol);
    }
  }
  return dims;
}

py::dict KernelToDict(const Manifest& manifest, const KernelSpec& kernel) {
  py::dict d;
  d["name"] = kernel.name;
  d["plugin"] = manifest.name;
  d["core"] = kernel.core;
  d["source"] = manifest.source_path(kernel);
  d["description"] = kernel.description;
  d["manifest"] = manifest.manifest_path;
  d["line"] = kernel.line;
  py::list tensors;
  for (const auto& t : kernel.tensors) {
    py::dict param;
    param["name"] = t.name;
    param["dtype"] = t.dtype;
    param["shape"] = ShapeToList(t.shape);
    param["direction"] = KernelParamDirectionName(t.direction);
    tensors.append(param);
  }
  d["tensors"] = tensors;
  py::list scalars;
  for (const auto& s : kernel.scalars) {
    py::dict param;
    param["name"] = s.name;
    param["dtype"] = s.dtype;
    scalars.append(param);
  }
  d["scalars"] = scalars;
  d["multiple_of"] = kernel.multiple_of;
  return d;
}

py::dict RecordToDict(const PluginRecord& rec) {
  py::dict d;
  d["name"] = rec.manifest.name;
  d["kind"] = rec.manifest.kind;
  d["version"] = rec.manifest.version;
  d["abi"] = rec.manifest.abi;
  d["path"] = rec.manifest.library_path();
  d["manifest"] = rec.manifest.manifest_path;
  d["provides"] = rec.manifest.provides;
  d["requires"] = rec.manifest.requires_;
  d["description"] = rec.manifest.description;
  d["loaded"] = rec.loaded;
  py::list kernels;
  for (const auto& kernel : rec.manifest.kernels) kernels.append(KernelToDict(rec.manifest, kernel));
  d["kernels"] = kernels;
  return d;
}
}  // namespace

void BindPlugins(py::module_& m) {
  m.def("discover", []() {
    py::list out;
    for (const auto& rec : PluginHost::Global().Discover()) out.append(RecordToDict(rec));
    return out;
  }, "Every plugin found on the search paths, as dicts, sorted by name.");
  m.def("search_paths", []() { return PluginHost::Global().SearchPaths(); });
  m.def("add_search_path", [](const std::filesystem::path& dir) { PluginHost::Global().AddSearchPath(dir); },
        py::arg("dir"));
  m.def("load", [](const std::string& name) { PluginHost::Global().Load(name); }, py::arg("name"),
        "Loads a discovered plugin (and the plugins it requires).");
  m.def("load_manifest", [](const std::filesystem::path& path) { PluginHost::Global().LoadManifest(path); },
        py::arg("manifest_path"), "Loads the plugin a manifest.yaml outside the search paths describes.");
  m.def("is_loaded", [](const std::string& name) { return PluginHost::Global().IsLoaded(name); }, py::arg("name"));
  m.def("core_library_dir", &CoreLibraryDir);
  m.def("data_dir", &DataDir);
  m.def("list_passes", []() {
    py::list out;
    for (const auto& info : pass::PassRegistry::Global().List()) {
      py::dict d;
      d["name"] = info.name;
      d["description"] = info.description;
      d["plugin"] = info.plugin;
      out.append(d);
    }
    return out;
  }, "Every pass the discovered plugins provide, sorted by name.");
  m.def("list_backends", []() {
    py::list out;
    for (const auto& info : backend::BackendRegistry::Global().List()) {
      py::dict d;
      d["name"] = info.name;
      d["description"] = info.description;
      d["plugin"] = info.plugin;
      d["loaded"] = backend::BackendRegistry::Global().Contains(info.name);
      out.append(d);
    }
    return out;
  }, "Every backend the discovered plugins provide, sorted by name, without loading them.");
  m.def("list_comm_engines", []() {
    py::list out;
    for (const auto& info : comm::ListEngines()) {
      py::dict d;
      d["name"] = info.name;
      d["description"] = info.description;
      d["plugin"] = info.plugin;
      d["loaded"] = comm::HasEngine(info.name);
      out.append(d);
    }
    return out;
  }, "Every communication engine the discovered plugins provide, sorted by name, without loading them.");
  m.def("backend_function_types", [](const std::string& name) {
    std::vector<std::string> types;
    for (auto type : backend::BackendRegistry::Global().Create(name)->function_types()) {
      types.emplace_back(ir::ToString(type));
    }
    return types;
  }, py::arg("name"),
        "The function types (\"AIC\", \"AIV\", \"Orchestration\", ...) a backend generates code for; "
        "loads its plugin.");
}

}  // namespace pypto::python
