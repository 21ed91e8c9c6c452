// Loading one plugin library: the steps between a parsed manifest and the
// things the library registers, each failure a PluginError naming the files.
#pragma once

#include <string>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/comm/registry.h"
#include "pypto/pass/pass.h"
#include "pypto/plugin/host.h"

namespace pypto::plugin {

struct StagedPass {
  std::string name;
  std::string description;
  pass::PassFactory factory;
};

struct StagedBackend {
  std::string name;
  std::string description;
  backend::BackendFactory factory;
};

struct StagedCommEngine {
  std::string name;
  std::string description;
  comm::EngineFactory factory;
};

// What a plugin registered, held back until the host has checked it against the manifest.
struct PluginContents {
  std::vector<StagedPass> passes;
  std::vector<StagedBackend> backends;
  std::vector<StagedCommEngine> comm_engines;
};

// Loads the manifest's library (RTLD_LOCAL, kept loaded for the life of the
// process), checks its entry point, ABI version and name, then runs its
// registration.
PluginContents LoadPluginLibrary(const Manifest& manifest);

// "plugin 'name' (path/to/manifest.yaml): "
std::string PluginErrorPrefix(const Manifest& manifest);

}  // namespace pypto::plugin
