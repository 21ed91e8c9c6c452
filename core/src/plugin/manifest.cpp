#include <algorithm>
#include <map>
#include <set>
#include <system_error>

#include "pypto/plugin/abi.h"
#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"
#include "kernel_manifest.h"
#include "yaml_file.h"

namespace pypto::plugin {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kRequiredFields = {"name", "kind", "version", "abi", "library", "provides"};
const std::vector<std::string> kOptionalFields = {"requires", "description", "toolchains"};
// A kernel plugin is C++ sources, not a library: its kernels are what it provides.
const std::vector<std::string> kRequiredKernelPluginFields = {"name", "kind", "version", "abi", "kernels"};
const std::vector<std::string> kOptionalKernelPluginFields = {"provides", "requires", "description"};
const std::vector<std::string> kKinds = {"pass", "backend", "kernel", "comm"};

class ManifestReader {
 public:
  explicit ManifestReader(fs::path path) : path_(std::move(path)) {}

  Manifest Read() {
    const YAML::Node root = LoadYamlFile(path_, ErrorKind::kPlugin, "plugin manifest");
    if (!root.IsMap()) {
      Fail(root.Mark(), "a plugin manifest is a mapping of fields (" + Join(kRequiredFields, ", ") + "), not " +
                            YamlKindName(root));
    }
    const bool kernel_plugin = root["kind"] && root["kind"].IsScalar() && root["kind"].Scalar() == "kernel";
    if (kernel_plugin) {
      CheckFieldNames(root, kRequiredKernelPluginFields, kOptionalKernelPluginFields, " of a kernel plugin");
    } else {
      CheckFieldNames(root, kRequiredFields, kOptionalFields, "");
    }
    Manifest m;
    m.manifest_path = path_;
    m.name = Text(root, "name");
    m.kind = Kind(root);
    m.version = Text(root, "version");
    m.abi = Abi(root);
    if (root["requires"]) m.requires_ = List(root, "requires");
    if (root["description"]) m.description = Text(root, "description");
    if (kernel_plugin) {
      m.kernels = ReadKernelSpecs(root["kernels"], path_);
      m.provides = KernelNames(root, m.kernels);
      return m;
    }
    m.library = Library(root);
    m.provides = List(root, "provides");
    if (root["toolchains"]) m.toolchains = Toolchains(root, m.kind);
    return m;
  }

 private:
  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& message) const {
    throw Error(ErrorKind::kPlugin, message, SpanOf(path_, mark));
  }

  // `which` qualifies the field lists in messages (" of a kernel plugin").
  void CheckFieldNames(const YAML::Node& root, const std::vector<std::string>& required,
                       const std::vector<std::string>& optional, const std::string& which) const {
    std::set<std::string> present;
    for (const auto& entry : root) {
      std::string key = entry.first.Scalar();
      bool known = std::count(required.begin(), required.end(), key) > 0 ||
                   std::count(optional.begin(), optional.end(), key) > 0;
      if (!known) {
        Fail(entry.first.Mark(), "unknown manifest field '" + key + "'; the fields" + which + " are " +
                                     Join(required, ", ") + " and optionally " + Join(optional, ", "));
      }
      present.insert(key);
    }
    for (const auto& field : required) {
      if (!present.count(field)) {
        Fail(root.Mark(), "the manifest has no '" + field + "' field; add it (required fields" + which + ": " +
                              Join(required, ", ") + ")");
      }
    }
  }

  // A kernel plugin provides its kernels; a `provides` list, when given, must name exactly them.
  std::vector<std::string> KernelNames(const YAML::Node& root, const std::vector<KernelSpec>& kernels) const {
    std::vector<std::string> names;
    for (const auto& kernel : kernels) names.push_back(kernel.name);
    if (root["provides"]) {
      std::vector<std::string> listed = List(root, "provides");
      if (std::set<std::string>(listed.begin(), listed.end()) != std::set<std::string>(names.begin(), names.end())) {
        Fail(root["provides"].Mark(), "manifest field 'provides' lists " + Join(listed, ", ") +
                                          " but the kernels are " + Join(names, ", ") +
                                          "; drop 'provides' (a kernel plugin provides its kernels) or match them");
      }
    }
    return names;
  }

  std::string Text(const YAML::Node& root, const std::string& field) const {
    YAML::Node node = root[field];
    if (!node.IsScalar() || node.Scalar().empty()) {
      Fail(node.Mark(), "manifest field '" + field + "' must be a non-empty text, not " + YamlKindName(node));
    }
    return node.Scalar();
  }

  std::string Kind(const YAML::Node& root) const {
    std::string kind = Text(root, "kind");
    if (std::count(kKinds.begin(), kKinds.end(), kind) == 0) {
      Fail(root["kind"].Mark(), "unknown plugin kind '" + kind + "'; kind is one of " + Join(kKinds, ", "));
    }
    return kind;
  }

  int Abi(const YAML::Node& root) const {
    YAML::Node node = root["abi"];
    int abi = 0;
    if (!node.IsScalar() || !YAML::convert<int>::decode(node, abi)) {
      Fail(node.Mark(), "manifest field 'abi' must be an integer (this PyPTO's plugin ABI is " +
                            std::to_string(PYPTO_PLUGIN_ABI_VERSION) + "), not " + YamlKindName(node));
    }
    if (abi != PYPTO_PLUGIN_ABI_VERSION) {
      Fail(node.Mark(), "the manifest declares plugin ABI " + std::to_string(abi) + " but this PyPTO (" +
                            PYPTO_VERSION_STRING + ") has plugin ABI " + std::to_string(PYPTO_PLUGIN_ABI_VERSION) +
                            "; rebuild the plugin against this PyPTO");
    }
    return abi;
  }

  std::string Library(const YAML::Node& root) const {
    std::string library = Text(root, "library");
    if (fs::path(library).filename() != fs::path(library)) {
      Fail(root["library"].Mark(),
           "manifest field 'library' must be a file name in the manifest's folder, not the path '" + library + "'");
    }
    return library;
  }

  // platform -> toolchain name; only a backend generates code a toolchain builds.
  std::map<std::string, std::string> Toolchains(const YAML::Node& root, const std::string& kind) const {
    YAML::Node node = root["toolchains"];
    if (kind != "backend") {
      Fail(node.Mark(), "manifest field 'toolchains' belongs to backend plugins; this plugin's kind is '" + kind + "'");
    }
    if (!node.IsMap()) {
      Fail(node.Mark(), "manifest field 'toolchains' must map platforms to toolchains, such as "
                        "{a2a3sim: simulator, a2a3: ascend}, not " + YamlKindName(node));
    }
    std::map<std::string, std::string> toolchains;
    for (const auto& entry : node) {
      if (!entry.second.IsScalar() || entry.second.Scalar().empty()) {
        Fail(entry.second.Mark(), "the toolchain of platform '" + entry.first.Scalar() + "' must be a name, not " +
                                      YamlKindName(entry.second));
      }
      toolchains[entry.first.Scalar()] = entry.second.Scalar();
    }
    return toolchains;
  }

  std::vector<std::string> List(const YAML::Node& root, const std::string& field) const {
    YAML::Node node = root[field];
    if (!node.IsSequence()) {
      Fail(node.Mark(), "manifest field '" + field + "' must be a list such as [A, B], not " + YamlKindName(node));
    }
    std::vector<std::string> items;
    for (const auto& item : node) {
      if (!item.IsScalar() || item.Scalar().empty()) {
        Fail(item.Mark(), "every entry of manifest field '" + field + "' must be a name, not " + YamlKindName(item));
      }
      items.push_back(item.Scalar());
    }
    return items;
  }

  fs::path path_;
};

// The manifests of one search folder: its own and its subfolders', in name order.
std::vector<fs::path> ManifestsIn(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (fs::is_regular_file(dir / "manifest.yaml", ec)) found.push_back(dir / "manifest.yaml");
  std::vector<fs::path> subdirs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) subdirs.push_back(entry.path());
  }
  std::sort(subdirs.begin(), subdirs.end());
  for (const auto& sub : subdirs) {
    if (fs::is_regular_file(sub / "manifest.yaml", ec)) found.push_back(sub / "manifest.yaml");
  }
  return found;
}

fs::path Canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p : c;
}

}  // namespace

Manifest ParseManifest(const fs::path& path) { return ManifestReader(path).Read(); }

std::vector<Manifest> FindManifests(const std::vector<fs::path>& dirs) {
  std::vector<Manifest> manifests;
  std::set<fs::path> seen_dirs;
  std::set<fs::path> seen_files;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec) || !seen_dirs.insert(Canonical(dir)).second) continue;
    for (const auto& file : ManifestsIn(dir)) {
      if (!seen_files.insert(Canonical(file)).second) continue;
      Manifest m = ParseManifest(Canonical(file));
      for (const auto& other : manifests) {
        if (other.name == m.name) {
          throw Error(ErrorKind::kPlugin, "two plugins are named '" + m.name + "': " + other.manifest_path.string() +
                                              " and " + m.manifest_path.string() +
                                              "; remove one of them from the search path or rename it");
        }
      }
      manifests.push_back(std::move(m));
    }
  }
  return manifests;
}

}  // namespace pypto::plugin
