// Where passes are found by name. Plugins register their passes here when
// they are loaded; asking for a pass that no loaded plugin provides loads the
// plugin whose manifest lists it.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "pypto/pass/pass.h"

namespace pypto::pass {

struct PassInfo {
  std::string name;
  std::string description;
  std::string plugin;  // the plugin that registered it
};

class PassRegistry {
 public:
  static PassRegistry& Global();

  // Two passes with one name is a PluginError naming both plugins.
  void Register(const std::string& name, const std::string& description, const std::string& plugin,
                PassFactory factory);
  bool Contains(const std::string& name) const;
  // Loads the providing plugin on demand; an unknown name is a PipelineError
  // listing the known passes.
  std::unique_ptr<Pass> Create(const std::string& name);
  // Registered passes plus passes that discovered-but-unloaded plugins provide, sorted by name.
  std::vector<PassInfo> List();
  // Registered passes only.
  std::vector<PassInfo> ListLoaded() const;

 private:
  struct Entry {
    PassInfo info;
    PassFactory factory;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Entry> passes_;
};

}  // namespace pypto::pass
