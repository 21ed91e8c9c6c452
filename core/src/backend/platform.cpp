#include "pypto/backend/platform.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>

#include "../plugin/yaml_file.h"
#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::backend {
namespace fs = std::filesystem;

namespace {

constexpr const char* kSimSuffix = "sim";
const std::vector<std::string> kPlatformFields = {"description", "memory", "cores", "dtypes", "casts",
                                                  "efficient_transfer_bytes", "acc_m_alignment",
                                                  "acc_m_alignment_by_dtype", "moves", "core_transfers",
                                                  "cross_core_ring", "throughput"};
const std::vector<std::string> kRequiredFields = {"description", "memory", "cores", "dtypes", "casts",
                                                  "efficient_transfer_bytes", "acc_m_alignment", "moves"};
const std::vector<std::string> kSpaceFields = {"capacity", "alignment"};
const std::vector<std::string> kCoreFields = {"clusters", "aic_per_cluster", "aiv_per_cluster"};

fs::path PlatformDir() { return plugin::DataDir() / "platforms"; }

bool EndsWithSim(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, kSimSuffix) == 0;
}

// Reads one description file into a Platform; every complaint names the file
// and the line of the offending node.
class PlatformReader {
 public:
  explicit PlatformReader(fs::path file) : file_(std::move(file)) {}

  Platform Read(const YAML::Node& root, const std::string& name) {
    if (!root.IsMap()) Fail(root.Mark(), "a platform file is a mapping of fields, not " + plugin::YamlKindName(root));
    CheckKeys(root, kPlatformFields, "platform field");
    for (const auto& field : kRequiredFields) {
      if (!root[field]) Fail(root.Mark(), "the platform file has no '" + field + ":'; add it");
    }
    Platform platform;
    platform.name = name;
    platform.simulated = EndsWithSim(name);
    platform.soc = file_.stem().string();
    platform.description = Text(root["description"], "description");
    ReadMemory(root["memory"], platform);
    ReadCores(root["cores"], platform);
    for (const auto& item : List(root["dtypes"], "dtypes")) platform.dtypes.push_back(DType(item));
    for (const auto& item : List(root["casts"], "casts")) {
      auto pair = Pair(item, "casts", "[FP32, FP16]");
      platform.casts.emplace_back(DType(pair.first), DType(pair.second));
    }
    for (const auto& item : List(root["moves"], "moves")) {
      auto pair = Pair(item, "moves", "[Mat, Left]");
      platform.moves.emplace_back(Space(pair.first), Space(pair.second));
    }
    if (root["core_transfers"]) {
      for (const auto& item : List(root["core_transfers"], "core_transfers")) {
        auto pair = Pair(item, "core_transfers", "[Acc, Vec]");
        platform.core_transfers.emplace_back(Space(pair.first), Space(pair.second));
      }
    }
    if (root["cross_core_ring"]) platform.pipe_ring_in_consumer = CrossCoreRing(root["cross_core_ring"]);
    platform.efficient_transfer_bytes = Positive(root["efficient_transfer_bytes"], "efficient_transfer_bytes");
    platform.acc_m_alignment = Positive(root["acc_m_alignment"], "acc_m_alignment");
    if (root["acc_m_alignment_by_dtype"]) {
      for (const auto& entry : Map(root["acc_m_alignment_by_dtype"], "acc_m_alignment_by_dtype")) {
        platform.acc_m_alignment_by_dtype.emplace_back(
            DType(entry.first), Positive(entry.second, "acc_m_alignment_by_dtype." + entry.first.Scalar()));
      }
    }
    if (root["throughput"]) ReadThroughput(root["throughput"], platform);
    return platform;
  }

 private:
  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& message) const {
    throw Error(ErrorKind::kValue, "platform file " + file_.string() + ": " + message, plugin::SpanOf(file_, mark));
  }

  void CheckKeys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        Fail(entry.first.Mark(), "unknown " + what + " '" + key + "'; the fields are " + Join(allowed, ", "));
      }
    }
  }

  const YAML::Node& Map(const YAML::Node& node, const std::string& field) const {
    if (!node.IsMap()) Fail(node.Mark(), "'" + field + "' must be a mapping, not " + plugin::YamlKindName(node));
    return node;
  }

  const YAML::Node& List(const YAML::Node& node, const std::string& field) const {
    if (!node.IsSequence()) Fail(node.Mark(), "'" + field + "' must be a list, not " + plugin::YamlKindName(node));
    return node;
  }

  std::string Text(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      Fail(node.Mark(), "'" + field + "' must be a non-empty text, not " + plugin::YamlKindName(node));
    }
    return node.Scalar();
  }

  bool CrossCoreRing(const YAML::Node& node) const {
    std::string where = Text(node, "cross_core_ring");
    if (where != "gm" && where != "consumer") {
      Fail(node.Mark(), "'cross_core_ring' is gm (rings in global memory) or consumer (in the consumer's buffer), "
                        "not '" + where + "'");
    }
    return where == "consumer";
  }

  int64_t Positive(const YAML::Node& node, const std::string& field) const {
    int64_t value = 0;
    if (!node.IsScalar() || !YAML::convert<int64_t>::decode(node, value) || value <= 0) {
      Fail(node.Mark(), "'" + field + "' must be a positive integer, not " + plugin::YamlKindName(node));
    }
    return value;
  }

  std::pair<YAML::Node, YAML::Node> Pair(const YAML::Node& node, const std::string& field,
                                         const std::string& example) const {
    if (!node.IsSequence() || node.size() != 2) {
      Fail(node.Mark(), "every entry of '" + field + "' is a pair such as " + example + ", not " +
                            plugin::YamlKindName(node));
    }
    return {node[0], node[1]};
  }

  ir::DataType DType(const YAML::Node& node) const {
    auto dtype = node.IsScalar() ? ir::DataType::FromName(node.Scalar()) : std::nullopt;
    if (!dtype) Fail(node.Mark(), "unknown dtype " + plugin::YamlKindName(node) + "; use names such as FP32, BF16, INT8");
    return *dtype;
  }

  ir::MemorySpace Space(const YAML::Node& node) const {
    auto space = node.IsScalar() ? ir::EnumFromString<ir::MemorySpace>(node.Scalar()) : std::nullopt;
    if (!space) {
      Fail(node.Mark(), "unknown memory space " + plugin::YamlKindName(node) +
                            "; the spaces are DDR, Vec, Mat, Left, Right, Acc, Bias");
    }
    return *space;
  }

  void ReadMemory(const YAML::Node& memory, Platform& platform) const {
    for (const auto& entry : Map(memory, "memory")) {
      ir::MemorySpace space = Space(entry.first);
      if (space == ir::MemorySpace::DDR) {
        Fail(entry.first.Mark(), "'memory' lists on-chip spaces only; DDR has no capacity here");
      }
      const std::string field = "memory." + entry.first.Scalar();
      const YAML::Node& info = Map(entry.second, field);
      CheckKeys(info, kSpaceFields, field + " field");
      if (!info["capacity"]) Fail(info.Mark(), "'" + field + "' has no 'capacity:' (usable bytes); add it");
      MemorySpaceInfo space_info;
      space_info.space = space;
      space_info.capacity_bytes = Positive(info["capacity"], field + ".capacity");
      if (info["alignment"]) {
        space_info.alignment_bytes = Positive(info["alignment"], field + ".alignment");
        if ((space_info.alignment_bytes & (space_info.alignment_bytes - 1)) != 0) {
          Fail(info["alignment"].Mark(), "'" + field + ".alignment' must be a power of two, not " +
                                             std::to_string(space_info.alignment_bytes));
        }
      }
      platform.memory[space] = space_info;
    }
  }

  void ReadCores(const YAML::Node& cores, Platform& platform) const {
    CheckKeys(Map(cores, "cores"), kCoreFields, "cores field");
    for (const auto& field : kCoreFields) {
      if (!cores[field]) Fail(cores.Mark(), "'cores' has no '" + field + ":'; add it");
    }
    platform.clusters = static_cast<int>(Positive(cores["clusters"], "cores.clusters"));
    platform.aic_per_cluster = static_cast<int>(Positive(cores["aic_per_cluster"], "cores.aic_per_cluster"));
    platform.aiv_per_cluster = static_cast<int>(Positive(cores["aiv_per_cluster"], "cores.aiv_per_cluster"));
  }

  void ReadThroughput(const YAML::Node& throughput, Platform& platform) const {
    for (const auto& pipe : Map(throughput, "throughput")) {
      const std::string pipe_name = pipe.first.Scalar();
      for (const auto& figure : Map(pipe.second, "throughput." + pipe_name)) {
        double value = 0;
        if (!figure.second.IsScalar() || !YAML::convert<double>::decode(figure.second, value)) {
          Fail(figure.second.Mark(), "'throughput." + pipe_name + "." + figure.first.Scalar() +
                                         "' must be a number, not " + plugin::YamlKindName(figure.second));
        }
        platform.throughput[pipe_name][figure.first.Scalar()] = value;
      }
    }
  }

  fs::path file_;
};

std::string SocOf(const std::string& name) { return EndsWithSim(name) ? name.substr(0, name.size() - 3) : name; }

}  // namespace

const MemorySpaceInfo& Platform::Space(ir::MemorySpace space) const {
  auto it = memory.find(space);
  if (it == memory.end()) {
    ThrowValueError("platform '" + name + "' has no on-chip memory space " + ir::ToString(space) +
                    "; its spaces are in platforms/" + soc + ".yaml under 'memory:'");
  }
  return it->second;
}

bool Platform::SupportsDType(ir::DataType dtype) const {
  return std::find(dtypes.begin(), dtypes.end(), dtype) != dtypes.end();
}

bool Platform::SupportsCast(ir::DataType from, ir::DataType to) const {
  return std::find(casts.begin(), casts.end(), std::make_pair(from, to)) != casts.end();
}

bool Platform::SupportsMove(ir::MemorySpace from, ir::MemorySpace to) const {
  return std::find(moves.begin(), moves.end(), std::make_pair(from, to)) != moves.end();
}

std::optional<std::vector<ir::MemorySpace>> Platform::MovePath(ir::MemorySpace from, ir::MemorySpace to) const {
  // A core transfer costs more than any number of moves inside one core.
  constexpr int kTransferCost = 1000;
  struct Edge {
    ir::MemorySpace to;
    int cost;
  };
  std::map<ir::MemorySpace, std::vector<Edge>> edges;
  for (const auto& [a, b] : moves) {
    if (a != ir::MemorySpace::DDR && b != ir::MemorySpace::DDR) edges[a].push_back({b, 1});
  }
  for (const auto& [a, b] : core_transfers) edges[a].push_back({b, kTransferCost});
  std::map<ir::MemorySpace, int> cost = {{from, 0}};
  std::map<ir::MemorySpace, ir::MemorySpace> previous;
  std::set<ir::MemorySpace> done;
  while (true) {
    std::optional<ir::MemorySpace> next;
    for (const auto& [space, c] : cost) {
      if (!done.count(space) && (!next || c < cost.at(*next))) next = space;
    }
    if (!next) return std::nullopt;
    if (*next == to) break;
    done.insert(*next);
    for (const Edge& edge : edges[*next]) {
      int through = cost.at(*next) + edge.cost;
      auto known = cost.find(edge.to);
      if (known == cost.end() || through < known->second) {
        cost[edge.to] = through;
        previous[edge.to] = *next;
      }
    }
  }
  std::vector<ir::MemorySpace> path = {to};
  while (path.back() != from) path.push_back(previous.at(path.back()));
  std::reverse(path.begin(), path.end());
  return path;
}

int64_t Platform::AccMAlignment(ir::DataType acc_dtype) const {
  for (const auto& [dtype, alignment] : acc_m_alignment_by_dtype) {
    if (dtype == acc_dtype) return alignment;
  }
  return acc_m_alignment;
}

std::optional<double> Platform::Throughput(const std::string& pipe, const std::string& figure) const {
  auto pipe_it = throughput.find(pipe);
  if (pipe_it == throughput.end()) return std::nullopt;
  auto figure_it = pipe_it->second.find(figure);
  if (figure_it == pipe_it->second.end()) return std::nullopt;
  return figure_it->second;
}

Platform Platform::LoadFile(const fs::path& path, const std::string& name) {
  YAML::Node root = plugin::LoadYamlFile(path, ErrorKind::kValue, "platform file");
  return PlatformReader(path).Read(root, name);
}

const Platform& Platform::Get(const std::string& name) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Platform>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(name);
  if (it != cache.end()) return *it->second;
  fs::path file = PlatformDir() / (SocOf(name) + ".yaml");
  std::error_code ec;
  if (name.empty() || !fs::is_regular_file(file, ec)) {
    auto known = Names();
    ThrowValueError("unknown platform '" + name + "'; the platforms are " + (known.empty() ? "none" : Join(known, ", ")) +
                    " (descriptions in " + PlatformDir().string() + ")");
  }
  auto platform = std::make_unique<Platform>(LoadFile(file, name));
  return *cache.emplace(name, std::move(platform)).first->second;
}

std::vector<std::string> Platform::Names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(PlatformDir(), ec)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string soc = entry.path().stem().string();
    names.push_back(soc);
    names.push_back(soc + kSimSuffix);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pypto::backend
