#include <boost/dll/runtime_symbol_info.hpp>

#include "pypto/plugin/host.h"

namespace pypto::plugin {

std::filesystem::path CoreLibraryDir() {
  // this_line_location names the binary holding this code: libpypto_core.so,
  // wherever the build tree, an install prefix or a wheel put it.
  static const std::filesystem::path dir = boost::dll::this_line_location().parent_path();
  return dir;
}

std::filesystem::path CorePluginDir() { return CoreLibraryDir() / PYPTO_PLUGIN_REL_DIR; }

std::filesystem::path DataDir() { return (CoreLibraryDir() / PYPTO_DATA_REL_DIR).lexically_normal(); }

}  // namespace pypto::plugin
