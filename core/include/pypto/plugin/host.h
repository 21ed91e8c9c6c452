// The plugin host: finds plugins through their manifest.yaml files, loads
// their libraries with Boost.DLL (never unloading them), checks the ABI, and
// lets them register what they provide.
//
// Search order: the plugin folder next to libpypto_core.so (the build tree or
// the install prefix), then each folder of PYPTO_PLUGIN_PATH (colon
// separated), then folders added with AddSearchPath. A folder is searched for
// manifest.yaml in itself and in its immediate subfolders.
#pragma once

#include <filesystem>
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
  std::filesystem::path manifest_path;

  std::filesystem::path library_path() const { return manifest_path.parent_path() / library; }
};

// Reads and validates one manifest; errors name the file and line.
Manifest ParseManifest(const std::filesystem::path& path);

struct PluginRecord {
  Manifest manifest;
  bool loaded = false;
};

class PluginHost {
 public:
  static PluginHost& Global();

  std::vector<std::filesystem::path> SearchPaths() const;
  void AddSearchPath(const std::filesystem::path& dir);

  // Scans the search paths (again, if they changed) and returns every plugin
  // found, sorted by name. Two manifests with one name is a PluginError
  // naming both files.
  std::vector<PluginRecord> Discover();
  std::optional<PluginRecord> Find(const std::string& name);
  // The discovered plugin whose manifest provides `item` (a pass name, ...).
  std::optional<PluginRecord> FindProvider(const std::string& item);

  // Loads a discovered plugin by name, after the plugins it requires.
  void Load(const std::string& name);
  // Loads the plugin described by a manifest file outside the search paths.
  void LoadManifest(const std::filesystem::path& manifest_path);
  void LoadAll();
  bool IsLoaded(const std::string& name) const;

 private:
  PluginHost() = default;
  void LoadRecord(const Manifest& manifest, std::vector<std::string>& loading);
  void DiscoverLocked();

  mutable std::recursive_mutex mutex_;
  std::vector<std::filesystem::path> extra_paths_;
  std::vector<PluginRecord> plugins_;
  std::vector<std::filesystem::path> scanned_paths_;
  bool scanned_ = false;
};

// Where libpypto_core.so lives; the root of the build tree or install prefix is its parent.
std::filesystem::path CoreLibraryDir();
// <prefix>/share/pypto: pipelines/ and platforms/.
std::filesystem::path DataDir();

}  // namespace pypto::plugin
