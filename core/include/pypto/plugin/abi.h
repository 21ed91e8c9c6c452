// The binary contract between the plugin host and a plugin library.
//
// A plugin exports one C function, `pypto_plugin_entry`, returning a pointer
// to a PyptoPluginInfo: plain C data the host can read safely whatever
// compiler built the plugin. The host checks `abi_version` (and the core
// version the plugin was built against) before it calls `register_plugin`,
// the first point where C++ objects cross the boundary.
//
// Plugins use the PYPTO_PLUGIN macro rather than writing the entry by hand:
//
//   static void Register(pypto::plugin::PluginRegistrar& r) {
//     r.AddPass("MyPass", "what it does", [] { return std::make_unique<MyPass>(); });
//   }
//
// (a backend plugin calls r.AddBackend, a comm plugin r.AddCommEngine, the same way).
//   PYPTO_PLUGIN("my_pass", "1.0.0", Register)
#pragma once

#include <cstdint>
#include <string>

#include "pypto/backend/backend.h"
#include "pypto/comm/registry.h"
#include "pypto/pass/pass.h"
#include "pypto/version.h"

// Bump whenever a type that crosses the plugin boundary changes layout or
// virtual functions (Pass, Backend, comm::Engine, PluginRegistrar, IR node
// classes, Diagnostic). 2: PluginRegistrar::AddBackend, the Backend interface,
// and Diagnostic's severity and fix fields. 3: plugins of kind `comm`:
// PluginRegistrar::AddCommEngine and the comm::Engine interface. 4: comm
// domains (Engine::DoCreateDomain; DoAllocWindow and DoAllGather take a domain).
#define PYPTO_PLUGIN_ABI_VERSION 4
#define PYPTO_PLUGIN_ENTRY_SYMBOL "pypto_plugin_entry"

namespace pypto::plugin {
class PluginRegistrar;
}

extern "C" {
struct PyptoPluginInfo {
  uint32_t abi_version;        // PYPTO_PLUGIN_ABI_VERSION the plugin was built with
  const char* name;            // must equal the manifest's name
  const char* version;         // the plugin's own version
  const char* core_version;    // the PyPTO version it was built against
  void (*register_plugin)(pypto::plugin::PluginRegistrar* registrar);
};
typedef const PyptoPluginInfo* (*PyptoPluginEntryFn)();
}

namespace pypto::plugin {

// What a plugin hands to the core when it is loaded.
class PluginRegistrar {
 public:
  virtual ~PluginRegistrar() = default;
  // The plugin's name from its manifest.
  virtual const std::string& plugin_name() const = 0;
  // Only a plugin of kind `pass` registers passes, and only those its manifest provides.
  virtual void AddPass(const std::string& pass_name, const std::string& description, pass::PassFactory factory) = 0;
  // Only a plugin of kind `backend` registers backends, and only those its manifest provides.
  virtual void AddBackend(const std::string& backend_name, const std::string& description,
                          backend::BackendFactory factory) = 0;
  // Only a plugin of kind `comm` registers communication engines, and only those its manifest provides.
  virtual void AddCommEngine(const std::string& engine_name, const std::string& description,
                             comm::EngineFactory factory) = 0;
};

}  // namespace pypto::plugin


#define PYPTO_PLUGIN(plugin_name, plugin_version, register_fn)                                    \
  extern "C" __attribute__((visibility("default"))) const PyptoPluginInfo* pypto_plugin_entry() { \
    static const PyptoPluginInfo info = {                                                         \
        PYPTO_PLUGIN_ABI_VERSION, plugin_name, plugin_version, PYPTO_VERSION_STRING,              \
        [](::pypto::plugin::PluginRegistrar* r) { register_fn(*r); }};                           \
    return &info;                                                                                 \
  }
