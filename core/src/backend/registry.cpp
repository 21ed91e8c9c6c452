#include "pypto/backend/registry.h"

#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::backend {

BackendRegistry& BackendRegistry::Global() {
  static BackendRegistry registry;
  return registry;
}

void BackendRegistry::Register(const std::string& name, const std::string& description, const std::string& plugin,
                               BackendFactory factory) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = backends_.find(name);
  if (it != backends_.end()) {
    throw Error(ErrorKind::kPlugin, "backend '" + name + "' is provided by two plugins, '" + it->second.info.plugin +
                                        "' and '" + plugin + "'; remove or rename one of them");
  }
  backends_.emplace(name, Entry{{name, description, plugin}, std::move(factory)});
}

bool BackendRegistry::Contains(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return backends_.count(name) > 0;
}

std::unique_ptr<Backend> BackendRegistry::Create(const std::string& name) {
  if (!Contains(name)) {
    if (auto provider = plugin::PluginHost::Global().FindProvider(name, "backend")) {
      plugin::PluginHost::Global().Load(provider->manifest.name);
    }
  }
  Entry entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = backends_.find(name);
    if (it != backends_.end()) entry = it->second;
  }
  // List() consults the plugin host, so it runs without mutex_ held: a plugin
  // being loaded on another thread registers its backends under that lock.
  if (!entry.factory) {
    auto known = JoinMapped(List(), ", ", [](const BackendInfo& info) { return info.name; });
    throw Error(ErrorKind::kValue, "unknown backend '" + name + "'; known backends: " +
                                       (known.empty() ? std::string("none") : known) +
                                       ". A backend from an out-of-tree plugin needs its folder on PYPTO_PLUGIN_PATH");
  }
  auto backend = entry.factory();
  if (!backend) {
    throw Error(ErrorKind::kPlugin, "the factory of backend '" + name + "' in plugin '" + entry.info.plugin +
                                        "' returned no backend; it must return std::make_unique<...>()");
  }
  return backend;
}

std::vector<BackendInfo> BackendRegistry::ListLoaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<BackendInfo> out;
  for (const auto& [name, entry] : backends_) out.push_back(entry.info);
  return out;
}

std::vector<BackendInfo> BackendRegistry::List() {
  auto records = plugin::PluginHost::Global().Discover();
  std::map<std::string, BackendInfo> all;
  for (const auto& info : ListLoaded()) all[info.name] = info;
  for (const auto& record : records) {
    if (record.manifest.kind != "backend") continue;
    for (const auto& provided : record.manifest.provides) {
      if (!all.count(provided)) all[provided] = BackendInfo{provided, record.manifest.description, record.manifest.name};
    }
  }
  std::vector<BackendInfo> out;
  for (auto& [name, info] : all) out.push_back(std::move(info));
  return out;
}

}  // namespace pypto::backend
