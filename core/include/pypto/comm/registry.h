// Where communication engines are found by name, and the one engine a process
// runs. Comm plugins register engine factories here when they are loaded;
// Start(name) loads the plugin whose manifest provides `name`, the way
// backends are found.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "pypto/comm/engine.h"

namespace pypto::comm {

using EngineFactory = std::function<std::unique_ptr<Engine>()>;

struct EngineInfo {
  std::string name;
  std::string description;
  std::string plugin;  // the plugin that registered it (or whose manifest provides it)
};

// Two engines with one name is a PluginError naming both plugins.
void RegisterEngine(const std::string& name, const std::string& description, const std::string& plugin,
                    EngineFactory factory);
bool HasEngine(const std::string& name);
// Registered engines plus engines that discovered-but-unloaded plugins provide, sorted by name.
std::vector<EngineInfo> ListEngines();
// Registered engines only.
std::vector<EngineInfo> ListLoadedEngines();

// Starts engine `name` (loading its plugin) and makes it the process's engine.
// Starting the running engine again returns it; a different name while one
// runs, or an unknown name (the message lists the known ones), is an error.
Engine& Start(const std::string& name);
// The running engine, or nullptr.
Engine* Active();
// The running engine's name; empty when none runs.
std::string ActiveName();
// Stops the running engine (the transport shuts down; collective). Does
// nothing when none runs. Also runs at normal process exit.
void Finalize();

}  // namespace pypto::comm
