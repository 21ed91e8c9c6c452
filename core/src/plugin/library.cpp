#include "library.h"

#include <dlfcn.h>

#include <boost/dll/shared_library.hpp>
#include <set>
#include <system_error>

#include "pypto/plugin/abi.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::plugin {
namespace {

// Libraries stay loaded until the process exits: factories and objects they
// created live in core registries whose destructors may still call into them.
// The list is leaked so that no static destructor ever unloads one.
std::vector<boost::dll::shared_library>& LoadedLibraries() {
  static auto* libraries = new std::vector<boost::dll::shared_library>();
  return *libraries;
}

[[noreturn]] void Fail(const Manifest& manifest, const std::string& message) {
  throw Error(ErrorKind::kPlugin, PluginErrorPrefix(manifest) + message);
}

class StagingRegistrar : public PluginRegistrar {
 public:
  explicit StagingRegistrar(const std::string& plugin_name) : plugin_name_(plugin_name) {}

  const std::string& plugin_name() const override { return plugin_name_; }

  // Never throws: this runs inside plugin code, which may not expect exceptions.
  void AddPass(const std::string& pass_name, const std::string& description, pass::PassFactory factory) override {
    if (Accept("pass", pass_name, static_cast<bool>(factory))) {
      contents_.passes.push_back({pass_name, description, std::move(factory)});
    }
  }

  void AddBackend(const std::string& backend_name, const std::string& description,
                  backend::BackendFactory factory) override {
    if (Accept("backend", backend_name, static_cast<bool>(factory))) {
      contents_.backends.push_back({backend_name, description, std::move(factory)});
    }
  }

  void AddCommEngine(const std::string& engine_name, const std::string& description,
                     comm::EngineFactory factory) override {
    if (Accept("comm engine", engine_name, static_cast<bool>(factory))) {
      contents_.comm_engines.push_back({engine_name, description, std::move(factory)});
    }
  }

  const std::vector<std::string>& problems() const { return problems_; }
  PluginContents TakeContents() { return std::move(contents_); }

 private:
  // Whether a registration of `kind` ("pass", "backend", "comm engine") is well formed; records why not.
  bool Accept(const std::string& kind, const std::string& name, bool has_factory) {
    if (name.empty()) {
      problems_.push_back("it registered a " + kind + " with an empty name");
    } else if (!has_factory) {
      problems_.push_back("it registered " + kind + " '" + name + "' without a factory");
    } else if (!names_.insert({kind, name}).second) {
      problems_.push_back("it registered " + kind + " '" + name + "' twice");
    } else {
      return true;
    }
    return false;
  }

  std::string plugin_name_;
  std::set<std::pair<std::string, std::string>> names_;  // (kind, name)
  std::vector<std::string> problems_;
  PluginContents contents_;
};

boost::dll::shared_library OpenLibrary(const Manifest& manifest) {
  auto path = manifest.library_path();
  std::error_code exists_ec;
  if (!std::filesystem::is_regular_file(path, exists_ec)) {
    Fail(manifest, "its library '" + manifest.library + "' does not exist at " + path.string() +
                       "; build the plugin, or fix the manifest's 'library' field");
  }
  boost::dll::fs::error_code ec;
  // rtld_now: an unresolved symbol fails here, with a message, not later in the middle of a pass.
  boost::dll::shared_library library(path, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now, ec);
  if (ec) {
    const char* reason = dlerror();
    Fail(manifest, "cannot load library " + path.string() + ": " + (reason ? reason : ec.message()) +
                       "; rebuild it for this machine and make sure libpypto_core.so is found by its RPATH");
  }
  return library;
}

const PyptoPluginInfo* EntryInfo(const Manifest& manifest, const boost::dll::shared_library& library) {
  auto path = manifest.library_path().string();
  if (!library.has(PYPTO_PLUGIN_ENTRY_SYMBOL)) {
    Fail(manifest, "library " + path + " does not export '" PYPTO_PLUGIN_ENTRY_SYMBOL
                   "'; define it with PYPTO_PLUGIN(name, version, register_fn) in one of the plugin's sources");
  }
  auto& entry = library.get<const PyptoPluginInfo*()>(PYPTO_PLUGIN_ENTRY_SYMBOL);
  const PyptoPluginInfo* info = entry();
  if (info == nullptr) Fail(manifest, "'" PYPTO_PLUGIN_ENTRY_SYMBOL "' of " + path + " returned null");
  return info;
}

// Only abi_version is read before it is known to match: the rest of the struct may differ.
void CheckInfo(const Manifest& manifest, const PyptoPluginInfo& info) {
  auto path = manifest.library_path().string();
  if (info.abi_version != PYPTO_PLUGIN_ABI_VERSION) {
    Fail(manifest, "library " + path + " was built for plugin ABI " + std::to_string(info.abi_version) +
                       " but this PyPTO (" PYPTO_VERSION_STRING ") has plugin ABI " +
                       std::to_string(PYPTO_PLUGIN_ABI_VERSION) + "; rebuild the plugin against this PyPTO");
  }
  if (info.name == nullptr || info.register_plugin == nullptr) {
    Fail(manifest, "library " + path + " returned an incomplete PyptoPluginInfo (no name or register_plugin); "
                   "define its entry with PYPTO_PLUGIN(name, version, register_fn)");
  }
  if (manifest.name != info.name) {
    Fail(manifest, "library " + path + " calls itself '" + info.name + "' but its manifest names it '" +
                       manifest.name + "'; make the name in PYPTO_PLUGIN(...) and the manifest's 'name' agree");
  }
}

PluginContents Register(const Manifest& manifest, const PyptoPluginInfo& info) {
  StagingRegistrar registrar(manifest.name);
  try {
    info.register_plugin(&registrar);
  } catch (const std::exception& e) {
    Fail(manifest, std::string("its registration threw: ") + e.what());
  } catch (...) {
    Fail(manifest, "its registration threw an exception that is not a std::exception");
  }
  if (!registrar.problems().empty()) Fail(manifest, Join(registrar.problems(), "; "));
  return registrar.TakeContents();
}

}  // namespace

std::string PluginErrorPrefix(const Manifest& manifest) {
  return "plugin '" + manifest.name + "' (" + manifest.manifest_path.string() + "): ";
}

PluginContents LoadPluginLibrary(const Manifest& manifest) {
  LoadedLibraries().push_back(OpenLibrary(manifest));
  const PyptoPluginInfo* info = EntryInfo(manifest, LoadedLibraries().back());
  CheckInfo(manifest, *info);
  return Register(manifest, *info);
}

}  // namespace pypto::plugin
