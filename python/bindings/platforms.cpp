// pypto.platforms: the SoC descriptions passes compile against, read-only.
#include "casters.h"
#include "pypto/backend/platform.h"

namespace pypto::python {

namespace {

py::dict PlatformToDict(const backend::Platform& p) {
  py::dict memory;
  for (const auto& [space, info] : p.memory) {
    py::dict entry;
    entry["capacity"] = info.capacity_bytes;
    entry["alignment"] = info.alignment_bytes;
    memory[py::cast(space)] = entry;
  }
  py::dict d;
  d["name"] = p.name;
  d["soc"] = p.soc;
  d["description"] = p.description;
  d["simulated"] = p.simulated;
  d["memory"] = memory;
  d["clusters"] = p.clusters;
  d["aic_per_cluster"] = p.aic_per_cluster;
  d["aiv_per_cluster"] = p.aiv_per_cluster;
  d["dtypes"] = p.dtypes;
  d["casts"] = p.casts;
  d["moves"] = p.moves;
  d["efficient_transfer_bytes"] = p.efficient_transfer_bytes;
  d["acc_m_alignment"] = p.acc_m_alignment;
  d["throughput"] = p.throughput;
  return d;
}

}  // namespace

void BindPlatforms(py::module_& m) {
  m.def("names", &backend::Platform::Names, "The platforms that can be compiled for (a2a3, a2a3sim, a5, a5sim).");
  m.def(
      "get", [](const std::string& name) { return PlatformToDict(backend::Platform::Get(name)); }, py::arg("name"),
      "The platform's description as a dict: memory (space -> capacity and alignment in bytes), core counts, "
      "dtypes, native casts and moves.");
}

}  // namespace pypto::python
