#include "pypto/comm/registry.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>

#include "pypto/plugin/host.h"
#include "pypto/support/strings.h"

namespace pypto::comm {
namespace {

struct Entry {
  EngineInfo info;
  EngineFactory factory;
};

struct Registry {
  std::mutex mutex;  // guards engines; never held while a plugin loads (it registers under it)
  std::map<std::string, Entry> engines;
  std::mutex start_mutex;  // serializes Start and Finalize
  std::unique_ptr<Engine> running;
  std::string running_name;
  // Read by kernels on every comm call, without taking a lock.
  std::atomic<Engine*> active{nullptr};
  bool exit_hook_installed = false;
};

// Leaked: the engine must outlive every static destructor that could still
// use it, and it is shut down by Finalize (or the exit hook), not by a destructor.
Registry& Global() {
  static auto* registry = new Registry();
  return *registry;
}

std::optional<Entry> FindEntry(const std::string& name) {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.engines.find(name);
  if (it == registry.engines.end()) return std::nullopt;
  return it->second;
}

// The registered entry, loading the plugin whose manifest provides `name` first.
Entry LoadEntry(const std::string& name) {
  if (!HasEngine(name)) {
    if (auto provider = plugin::PluginHost::Global().FindProvider(name, "comm")) {
      plugin::PluginHost::Global().Load(provider->manifest.name);
    }
  }
  if (auto entry = FindEntry(name)) return *entry;
  auto known = JoinMapped(ListEngines(), ", ", [](const EngineInfo& info) { return info.name; });
  ThrowValueError("unknown comm engine '" + name + "'; known comm engines: " +
                  (known.empty() ? std::string("none") : known) +
                  ". An engine from an out-of-tree plugin needs its folder on PYPTO_PLUGIN_PATH");
}

// A process that exits normally shuts its engine down (MPI requires it of every rank).
void FinalizeAtExit() {
  try {
    Finalize();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pypto: shutting down the comm engine at exit failed: %s\n", e.what());
  }
}

}  // namespace

void RegisterEngine(const std::string& name, const std::string& description, const std::string& plugin,
                    EngineFactory factory) {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.engines.find(name);
  if (it != registry.engines.end()) {
    throw Error(ErrorKind::kPlugin, "comm engine '" + name + "' is provided by two plugins, '" +
                                        it->second.info.plugin + "' and '" + plugin +
                                        "'; remove or rename one of them");
  }
  registry.engines.emplace(name, Entry{{name, description, plugin}, std::move(factory)});
}

bool HasEngine(const std::string& name) { return FindEntry(name).has_value(); }

std::vector<EngineInfo> ListLoadedEngines() {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<EngineInfo> out;
  for (const auto& [name, entry] : registry.engines) out.push_back(entry.info);
  return out;
}

std::vector<EngineInfo> ListEngines() {
  auto records = plugin::PluginHost::Global().Discover();
  std::map<std::string, EngineInfo> all;
  for (const auto& info : ListLoadedEngines()) all[info.name] = info;
  for (const auto& record : records) {
    if (record.manifest.kind != "comm") continue;
    for (const auto& provided : record.manifest.provides) {
      if (!all.count(provided)) all[provided] = EngineInfo{provided, record.manifest.description, record.manifest.name};
    }
  }
  std::vector<EngineInfo> out;
  for (auto& [name, info] : all) out.push_back(std::move(info));
  return out;
}

Engine& Start(const std::string& name) {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.start_mutex);
  if (registry.running) {
    if (registry.running_name == name) return *registry.running;
    ThrowValueError("cannot start comm engine '" + name + "': engine '" + registry.running_name +
                    "' already runs in this process (one engine per process); finalize it first, or start '" +
                    registry.running_name + "'");
  }
  Entry entry = LoadEntry(name);
  std::unique_ptr<Engine> engine = entry.factory();
  if (!engine) {
    throw Error(ErrorKind::kPlugin, "the factory of comm engine '" + name + "' in plugin '" + entry.info.plugin +
                                        "' returned no engine; it must return std::make_unique<...>()");
  }
  engine->Open();
  registry.running = std::move(engine);
  registry.running_name = name;
  registry.active = registry.running.get();
  if (!registry.exit_hook_installed) {
    std::atexit(FinalizeAtExit);
    registry.exit_hook_installed = true;
  }
  return *registry.running;
}

Engine* Active() { return Global().active.load(std::memory_order_acquire); }

std::string ActiveName() {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.start_mutex);
  return registry.running_name;
}

void Finalize() {
  auto& registry = Global();
  std::lock_guard<std::mutex> lock(registry.start_mutex);
  registry.active = nullptr;
  registry.running.reset();
  registry.running_name.clear();
}

}  // namespace pypto::comm
