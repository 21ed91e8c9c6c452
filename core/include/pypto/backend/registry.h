// Where backends are found by name. Backend plugins register their backends
// here when they are loaded; asking for a backend that no loaded plugin
// provides loads the plugin whose manifest lists it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pypto/backend/backend.h"

namespace pypto::backend {

struct BackendInfo {
  std::string name;
  std::string description;
  std::string plugin;  // the plugin that registered it (or whose manifest provides it)
};

class BackendRegistry {
 public:
  static BackendRegistry& Global();

  // Two backends with one name is a PluginError naming both plugins.
  void Register(const std::string& name, const std::string& description, const std::string& plugin,
                BackendFactory factory);
  bool Contains(const std::string& name) const;
  // Loads the providing plugin on demand; an unknown name is a ValueError
  // listing the known backends and the PYPTO_PLUGIN_PATH hint.
  std::unique_ptr<Backend> Create(const std::string& name);
  // Registered backends plus backends that discovered-but-unloaded plugins provide, sorted by name.
  std::vector<BackendInfo> List();
  // Registered backends only.
  std::vector<BackendInfo> ListLoaded() const;

 private:
  struct Entry {
    BackendInfo info;
    BackendFactory factory;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> backends_;
};

}  // namespace pypto::backend
