// The plugin host: finds plugins through their manifest.yaml files, loads
// their libraries with Boost.DLL (RTLD_LOCAL, never unloading them), checks
// the ABI, and lets them register what they provide.
//
// Search order: the plugin folder next to libpypto_core.so (the build tree or
// the install prefix), then each folder of PYPTO_PLUGIN_PATH (colon
// separated), then folders added with AddSearchPath. A folder is searched for
// manifest.yaml in itself and in its immediate subfolders.
//
// Every problem (malformed manifest, ABI mismatch, missing library or entry
// symbol, duplicate names, missing or cyclic requirements, a library that
// registers something other than what its manifest provides) is a PluginError
// naming the manifest file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pypto::plugin {

// One dim of a kernel's tensor parameter: a static size, or a symbol that
// every dim of that name in the kernel's signature shares (M, N, K).
struct KernelDim {
  int64_t size = -1;   // the static size; -1 for a symbolic dim
  std::string symbol;  // the symbol's name; empty for a static dim
  bool is_static() const { return symbol.empty(); }
};

enum class KernelParamDirection { kIn, kOut, kInOut };
const char* KernelParamDirectionName(KernelParamDirection direction);  // "In", "Out", "InOut"

struct KernelTensorParam {
  std::string name;
  std::string dtype;  // a DataType name: FP16, FP32, ...
  std::vector<KernelDim> shape;
  KernelParamDirection direction = KernelParamDirection::kIn;
};

struct KernelScalarParam {
  std::string name;
  std::string dtype;
};

// One hand-written kernel of a kernel plugin: what runs (its C++ source,
// defining kernel_entry as core/include/pypto/runtime/kernel_args.h describes), on
// which core, and the signature calls are checked against. The kernel's
// argument slots are its tensors, then its scalars, in this order.
struct KernelSpec {
  std::string name;
  std::string core;    // AIC | AIV
  std::string source;  // file name, relative to the manifest's folder
  std::string description;
  std::vector<KernelTensorParam> tensors;
  std::vector<KernelScalarParam> scalars;
  // Symbol -> the number its size must be a multiple of (the kernel's tile sizes).
  std::map<std::string, int64_t> multiple_of;
  int line = 0;  // the manifest line of its entry, for errors found later
};

struct Manifest {
  std::string name;
  std::string kind;  // pass | backend | kernel | comm
  std::string version;
  int abi = 0;
  std::string library;                 // file name, relative to the manifest's folder
  std::vector<std::string> provides;   // pass/backend/kernel/comm engine names
  std::vector<std::string> requires_;  // other plugins' names
  std::string description;
  // Backends: the toolchain that builds the generated code, per platform
  // (`toolchains: {a2a3sim: simulator, a2a3: ascend}`).
  std::map<std::string, std::string> toolchains;
  // Kernel plugins: their kernels (no library; `provides` lists the kernels' names).
  std::vector<KernelSpec> kernels;
  std::filesystem::path manifest_path;

  std::filesystem::path library_path() const { return manifest_path.parent_path() / library; }
  std::filesystem::path source_path(const KernelSpec& kernel) const { return manifest_path.parent_path() / kernel.source; }
};

// Reads and validates one manifest (including that its abi is the core's
// PYPTO_PLUGIN_ABI_VERSION, and for a kernel plugin each kernel's signature
// and that its source exists); errors name the file and line.
Manifest ParseManifest(const std::filesystem::path& path);

// The manifests in `dirs`, each folder searched in itself and its immediate
// subfolders, in folder order. Missing folders are skipped; a folder listed
// twice is searched once. Two manifests with one name is a PluginError naming
// both files.
std::vector<Manifest> FindManifests(const std::vector<std::filesystem::path>& dirs);

struct PluginRecord {
  Manifest manifest;
  bool loaded = false;
};

class PluginHost {
 public:
  static PluginHost& Global();

  // The core plugin folder, then PYPTO_PLUGIN_PATH (read now), then AddSearchPath folders.
  std::vector<std::filesystem::path> SearchPaths() const;
  // A folder that does not exist is a PluginError.
  void AddSearchPath(const std::filesystem::path& dir);

  // Scans the search paths (again, if they changed) and returns every plugin
  // found plus every plugin loaded from elsewhere, sorted by name. Two
  // manifests with one name is a PluginError naming both files.
  std::vector<PluginRecord> Discover();
  std::optional<PluginRecord> Find(const std::string& name);
  // The discovered plugin whose manifest provides `item` (a pass name, ...),
  // among plugins of `kind` ("pass", "backend", "comm") when it is not empty.
  std::optional<PluginRecord> FindProvider(const std::string& item, const std::string& kind = "");

  // Loads a discovered plugin by name, after the plugins it requires. Loading
  // a loaded plugin does nothing.
  void Load(const std::string& name);
  // Loads the plugin described by a manifest file outside the search paths;
  // the plugins it requires are looked up on the search paths.
  void LoadManifest(const std::filesystem::path& manifest_path);
  void LoadAll();
  bool IsLoaded(const std::string& name) const;

 private:
  PluginHost() = default;
  void DiscoverLocked();
  std::optional<Manifest> FindLocked(const std::string& name);
  void LoadWithRequirements(const Manifest& manifest, std::vector<Manifest>& loading);
  void LoadLocked(const Manifest& manifest);

  mutable std::recursive_mutex mutex_;
  std::vector<std::filesystem::path> extra_paths_;
  std::vector<Manifest> discovered_;
  std::vector<std::filesystem::path> scanned_paths_;
  bool scanned_ = false;
  std::map<std::string, Manifest> loaded_;  // by plugin name
};

// Where libpypto_core.so lives; the root of the build tree or install prefix is its parent.
std::filesystem::path CoreLibraryDir();
// <libdir>/pypto/plugins: the plugins built or installed with the core.
std::filesystem::path CorePluginDir();
// <prefix>/share/pypto: pipelines/ and platforms/.
std::filesystem::path DataDir();

}  // namespace pypto::plugin
