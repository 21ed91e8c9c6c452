// oot_driver <pipeline.yaml> <install prefix>
// Runs the pipeline (whose pass comes from the out-of-tree plugin on
// PYPTO_PLUGIN_PATH) and checks the result and where the installed core
// found itself. Exit status 0 means everything held.
#include <filesystem>
#include <iostream>

#include "pypto/pass/manager.h"
#include "pypto/plugin/host.h"
#include "pypto/support/error.h"

namespace fs = std::filesystem;

namespace {

int failures = 0;

void Check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok:   " : "FAIL: ") << what << "\n";
  if (!ok) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: oot_driver <pipeline.yaml> <install prefix>\n";
    return 2;
  }
  fs::path prefix = fs::canonical(argv[2]);
  try {
    Check(pypto::plugin::CoreLibraryDir() == prefix / "lib",
          "the core runs from the install prefix: " + pypto::plugin::CoreLibraryDir().string());
    Check(fs::is_regular_file(pypto::plugin::DataDir() / "pipelines" / "default.yaml"),
          "the installed core finds its pipelines in " + pypto::plugin::DataDir().string());
    auto manager = pypto::pass::PassManager::FromPipeline(argv[1]);
    auto result = manager.Run(pypto::ir::Program::Make("prog", {}));
    Check(result->name == "prog_oot_sdk", "the pipeline renamed 'prog' to '" + result->name + "'");
    auto record = pypto::plugin::PluginHost::Global().Find("oot_pass");
    Check(record && record->loaded, "plugin oot_pass is loaded");
  } catch (const pypto::Error& e) {
    std::cout << "FAIL: " << pypto::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
