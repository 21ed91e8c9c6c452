#include "pypto/pass/registry.h"

#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::pass {

PassRegistry& PassRegistry::Global() {
  static PassRegistry registry;
  return registry;
}

void PassRegistry::Register(const std::string& name, const std::string& description, const std::string& plugin,
                            PassFactory factory) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = passes_.find(name);
  if (it != passes_.end()) {
    throw Error(ErrorKind::kPlugin, "pass '" + name + "' is provided by two plugins, '" + it->second.info.plugin +
                                        "' and '" + plugin + "'; remove or rename one of them");
  }
  passes_.emplace(name, Entry{{name, description, plugin}, std::move(factory)});
}

bool PassRegistry::Contains(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return passes_.count(name) > 0;
}

std::unique_ptr<Pass> PassRegistry::Create(const std::string& name) {
  if (!Contains(name)) {
    if (auto provider = plugin::PluginHost::Global().FindProvider(name, "pass")) {
      plugin::PluginHost::Global().Load(provider->manifest.name);
    }
  }
  Entry entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = passes_.find(name);
    if (it != passes_.end()) entry = it->second;
  }
  // The known-pass list consults the plugin host, so it is built without holding mutex_:
  // a plugin being loaded on another thread registers its passes under that lock.
  if (!entry.factory) {
    auto known = JoinMapped(List(), ", ", [](const PassInfo& info) { return info.name; });
    throw Error(ErrorKind::kPipeline, "unknown pass '" + name + "'; known passes: " +
                                          (known.empty() ? std::string("none") : known) +
                                          ". A pass from an out-of-tree plugin needs its folder on PYPTO_PLUGIN_PATH");
  }
  auto pass = entry.factory();
  if (!pass) {
    throw Error(ErrorKind::kPlugin, "the factory of pass '" + name + "' in plugin '" + entry.info.plugin +
                                        "' returned no pass; it must return std::make_unique<...>()");
  }
  return pass;
}

std::vector<PassInfo> PassRegistry::ListLoaded() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<PassInfo> out;
  for (const auto& [n, e] : passes_) out.push_back(e.info);
  return out;
}

std::vector<PassInfo> PassRegistry::List() {
  auto records = plugin::PluginHost::Global().Discover();
  std::map<std::string, PassInfo> all;
  for (const auto& info : ListLoaded()) all[info.name] = info;
  for (const auto& rec : records) {
    if (rec.manifest.kind != "pass") continue;
    for (const auto& p : rec.manifest.provides) {
      if (!all.count(p)) all[p] = PassInfo{p, rec.manifest.description, rec.manifest.name};
    }
  }
  std::vector<PassInfo> out;
  for (auto& [n, info] : all) out.push_back(std::move(info));
  return out;
}

}  // namespace pypto::pass
