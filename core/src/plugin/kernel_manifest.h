// The `kernels:` section of a kernel plugin's manifest: each kernel's name,
// core, C++ source and signature (see docs/external-kernels.md).
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <vector>

#include "pypto/plugin/host.h"

namespace pypto::plugin {

// Reads and checks `node` (the value of the manifest's `kernels` field) of
// the manifest at `manifest_path`: a PluginError at the offending line for a
// malformed entry, an unknown dtype, core or direction, a symbol used only in
// `multiple_of`, two kernels or parameters with one name, or a source file
// that does not exist next to the manifest.
std::vector<KernelSpec> ReadKernelSpecs(const YAML::Node& node, const std::filesystem::path& manifest_path);

}  // namespace pypto::plugin
