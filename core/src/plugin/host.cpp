#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <system_error>

#include "library.h"
#include "pypto/backend/registry.h"
#include "pypto/comm/registry.h"
#include "pypto/pass/registry.h"
#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::plugin {
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> PluginPathFromEnvironment() {
  std::vector<fs::path> dirs;
  const char* value = std::getenv("PYPTO_PLUGIN_PATH");
  if (value == nullptr) return dirs;
  std::stringstream entries(value);
  std::string entry;
  while (std::getline(entries, entry, ':')) {
    if (!entry.empty()) dirs.emplace_back(entry);
  }
  return dirs;
}

std::string DescribeSearchPaths(const std::vector<fs::path>& dirs) {
  return "searched " + JoinMapped(dirs, ", ", [](const fs::path& p) { return p.string(); }) +
         "; add the plugin's folder to PYPTO_PLUGIN_PATH";
}

[[noreturn]] void ThrowDuplicate(const Manifest& a, const Manifest& b) {
  throw Error(ErrorKind::kPlugin, "two plugins are named '" + a.name + "': " + a.manifest_path.string() + " and " +
                                      b.manifest_path.string() +
                                      "; remove one of them from the search path or rename it");
}

bool Contains(const std::vector<std::string>& items, const std::string& item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

template <class Staged>
std::vector<std::string> Names(const std::vector<Staged>& staged) {
  std::vector<std::string> names;
  for (const auto& item : staged) names.push_back(item.name);
  return names;
}

// A plugin registers exactly what its manifest provides, and only things of
// its own kind: a pass plugin passes, a backend plugin backends, a comm plugin comm engines.
void CheckProvides(const Manifest& manifest, const PluginContents& contents) {
  std::vector<std::string> problems;
  // `kind` is the manifest kind, `item` what such a plugin registers ("pass", "comm engine").
  auto check = [&](const std::string& kind, const std::string& item_kind, const std::string& plural,
                   const std::string& add, const std::vector<std::string>& registered) {
    if (manifest.kind != kind) {
      for (const auto& name : registered) {
        problems.push_back("the library registered " + item_kind + " '" + name +
                           "' but the manifest declares kind '" + manifest.kind + "'; only a plugin of kind '" +
                           kind + "' registers " + plural + ": fix the manifest's 'kind' or move " + add + "(\"" +
                           name + "\", ...) to a " + kind + " plugin");
      }
      return;
    }
    for (const auto& item : manifest.provides) {
      if (!Contains(registered, item)) {
        problems.push_back("the manifest provides '" + item + "' but the library did not register a " + item_kind +
                           " of that name; register it with " + add + "(\"" + item +
                           "\", ...) or remove it from 'provides'");
      }
    }
    for (const auto& name : registered) {
      if (!Contains(manifest.provides, name)) {
        problems.push_back("the library registered " + item_kind + " '" + name +
                           "' which the manifest does not list; add it to 'provides'");
      }
    }
  };
  check("pass", "pass", "passes", "AddPass", Names(contents.passes));
  check("backend", "backend", "backends", "AddBackend", Names(contents.backends));
  check("comm", "comm engine", "comm engines", "AddCommEngine", Names(contents.comm_engines));
  if (!problems.empty()) throw Error(ErrorKind::kPlugin, PluginErrorPrefix(manifest) + Join(problems, "; "));
}

template <class Info, class Staged>
void CheckUnclaimed(const Manifest& manifest, const std::string& kind, const std::vector<Info>& loaded,
                    const std::vector<Staged>& staged) {
  std::map<std::string, std::string> owners;
  for (const auto& info : loaded) owners[info.name] = info.plugin;
  for (const auto& item : staged) {
    auto owner = owners.find(item.name);
    if (owner == owners.end()) continue;
    throw Error(ErrorKind::kPlugin, PluginErrorPrefix(manifest) + kind + " '" + item.name +
                                        "' is already registered by plugin '" + owner->second +
                                        "'; remove or rename one of them");
  }
}

// Checks every name first so that a conflict leaves the registries untouched.
void Commit(const Manifest& manifest, PluginContents& contents) {
  auto& passes = pass::PassRegistry::Global();
  auto& backends = backend::BackendRegistry::Global();
  CheckUnclaimed(manifest, "pass", passes.ListLoaded(), contents.passes);
  CheckUnclaimed(manifest, "backend", backends.ListLoaded(), contents.backends);
  CheckUnclaimed(manifest, "comm engine", comm::ListLoadedEngines(), contents.comm_engines);
  for (auto& staged : contents.passes) {
    passes.Register(staged.name, staged.description, manifest.name, std::move(staged.factory));
  }
  for (auto& staged : contents.backends) {
    backends.Register(staged.name, staged.description, manifest.name, std::move(staged.factory));
  }
  for (auto& staged : contents.comm_engines) {
    comm::RegisterEngine(staged.name, staged.description, manifest.name, std::move(staged.factory));
  }
}

}  // namespace

PluginHost& PluginHost::Global() {
  // Leaked, like the libraries it loads: nothing is torn down at exit.
  static auto* host = new PluginHost();
  return *host;
}

std::vector<fs::path> PluginHost::SearchPaths() const {
  std::vector<fs::path> dirs{CorePluginDir()};
  for (auto& dir : PluginPathFromEnvironment()) dirs.push_back(std::move(dir));
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  dirs.insert(dirs.end(), extra_paths_.begin(), extra_paths_.end());
  return dirs;
}

void PluginHost::AddSearchPath(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw Error(ErrorKind::kPlugin, "AddSearchPath: the folder '" + dir.string() +
                                        "' does not exist; pass the folder that holds the plugin folders");
  }
  fs::path absolute = fs::absolute(dir).lexically_normal();
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  if (!std::count(extra_paths_.begin(), extra_paths_.end(), absolute)) extra_paths_.push_back(absolute);
}

void PluginHost::DiscoverLocked() {
  auto dirs = SearchPaths();
  if (scanned_ && dirs == scanned_paths_) return;
  auto manifests = FindManifests(dirs);
  for (const auto& m : manifests) {
    auto it = loaded_.find(m.name);
    if (it != loaded_.end() && it->second.manifest_path != m.manifest_path) ThrowDuplicate(it->second, m);
  }
  discovered_ = std::move(manifests);
  scanned_paths_ = std::move(dirs);
  scanned_ = true;
}

std::vector<PluginRecord> PluginHost::Discover() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  DiscoverLocked();
  std::map<std::string, PluginRecord> records;
  for (const auto& [name, manifest] : loaded_) records[name] = PluginRecord{manifest, true};
  for (const auto& manifest : discovered_) records.emplace(manifest.name, PluginRecord{manifest, false});
  std::vector<PluginRecord> out;
  for (auto& [name, record] : records) out.push_back(std::move(record));
  return out;
}

std::optional<Manifest> PluginHost::FindLocked(const std::string& name) {
  auto it = loaded_.find(name);
  if (it != loaded_.end()) return it->second;
  DiscoverLocked();
  for (const auto& m : discovered_) {
    if (m.name == name) return m;
  }
  return std::nullopt;
}

std::optional<PluginRecord> PluginHost::Find(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto manifest = FindLocked(name);
  if (!manifest) return std::nullopt;
  return PluginRecord{*manifest, loaded_.count(name) > 0};
}

std::optional<PluginRecord> PluginHost::FindProvider(const std::string& item, const std::string& kind) {
  auto provides = [&](const Manifest& manifest) {
    return (kind.empty() || manifest.kind == kind) && Contains(manifest.provides, item);
  };
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  for (const auto& [name, manifest] : loaded_) {
    if (provides(manifest)) return PluginRecord{manifest, true};
  }
  DiscoverLocked();
  for (const auto& manifest : discovered_) {
    if (provides(manifest)) return PluginRecord{manifest, false};
  }
  return std::nullopt;
}

void PluginHost::Load(const std::string& name) {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  auto manifest = FindLocked(name);
  if (!manifest) {
    throw Error(ErrorKind::kPlugin, "no plugin named '" + name + "'; " + DescribeSearchPaths(SearchPaths()));
  }
  std::vector<Manifest> loading;
  LoadWithRequirements(*manifest, loading);
}

void PluginHost::LoadManifest(const fs::path& manifest_path) {
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(manifest_path, ec);
  Manifest manifest = ParseManifest(ec ? manifest_path : canonical);
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  std::vector<Manifest> loading;
  LoadWithRequirements(manifest, loading);
}

void PluginHost::LoadAll() {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  DiscoverLocked();
  for (const auto& manifest : std::vector<Manifest>(discovered_)) {
    std::vector<Manifest> loading;
    LoadWithRequirements(manifest, loading);
  }
}

bool PluginHost::IsLoaded(const std::string& name) const {
  std::lock_guard<std::recursive_mutex> lock(mutex_);
  return loaded_.count(name) > 0;
}

void PluginHost::LoadWithRequirements(const Manifest& manifest, std::vector<Manifest>& loading) {
  auto loaded = loaded_.find(manifest.name);
  if (loaded != loaded_.end()) {
    if (loaded->second.manifest_path != manifest.manifest_path) ThrowDuplicate(loaded->second, manifest);
    return;
  }
  auto first = std::find_if(loading.begin(), loading.end(), [&](const Manifest& m) { return m.name == manifest.name; });
  if (first != loading.end()) {
    std::vector<Manifest> cycle(first, loading.end());
    throw Error(ErrorKind::kPlugin,
                "plugins require each other in a cycle: " +
                    JoinMapped(cycle, " -> ", [](const Manifest& m) { return m.name; }) + " -> " + manifest.name +
                    " (" + JoinMapped(cycle, ", ", [](const Manifest& m) { return m.manifest_path.string(); }) +
                    "); remove one of these 'requires' entries");
  }
  loading.push_back(manifest);
  for (const auto& required : manifest.requires_) {
    auto dependency = FindLocked(required);
    if (!dependency) {
      throw Error(ErrorKind::kPlugin, PluginErrorPrefix(manifest) + "requires plugin '" + required +
                                          "', which is not installed; " + DescribeSearchPaths(SearchPaths()));
    }
    LoadWithRequirements(*dependency, loading);
  }
  loading.pop_back();
  LoadLocked(manifest);
}

void PluginHost::LoadLocked(const Manifest& manifest) {
  // A kernel plugin has no library: its sources are compiled when a program calls its kernels.
  if (manifest.kind == "kernel") {
    loaded_[manifest.name] = manifest;
    return;
  }
  PluginContents contents = LoadPluginLibrary(manifest);
  CheckProvides(manifest, contents);
  Commit(manifest, contents);
  loaded_[manifest.name] = manifest;
}

}  // namespace pypto::plugin
