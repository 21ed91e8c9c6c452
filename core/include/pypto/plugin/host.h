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

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace pypto::plugin {

struct Manifest {
  std::string name;
  std::string kind;  // pass | backend | kernel
  std::string version;
  int abi = 0;
  std::string library;                 // file name, relative to the manifest's folder
  std::vector<std::string> provides;   // pass/backend/kernel names
  std::vector<std::string> requires_;  // other plugins' names
  std::string description;
  // Backends: the toolchain that builds the generated code, per platform
  // (`toolchains: {a2a3sim: simulator, a2a3: ascend}`).
  std::map<std::string, std::string> toolchains;
  std::filesystem::path manifest_path;

  std::filesystem::path library_path() const { return manifest_path.parent_path() / library; }
};

// Reads and validates one manifest (including that its abi is the core's
// PYPTO_PLUGIN_ABI_VERSION); errors name the file and line.
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
  // among plugins of `kind` ("pass", "backend") when it is not empty.
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
