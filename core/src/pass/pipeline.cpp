#include "pypto/pass/pipeline.h"

#include <algorithm>
#include <system_error>

#include "../plugin/yaml_file.h"
#include "pypto/plugin/host.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::pass {
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kPipelineFields = {"name", "description", "verify", "input_properties", "passes"};
const std::vector<std::string> kStepFields = {"name", "options"};

// YAML 1.2 core schema for plain scalars; a quoted scalar is always a string.
ir::AttrValue ScalarValue(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  int64_t integer = 0;
  if (YAML::convert<int64_t>::decode(node, integer)) return integer;
  double real = 0;
  if (YAML::convert<double>::decode(node, real)) return real;
  return text;
}

class PipelineReader {
 public:
  explicit PipelineReader(std::string source) : source_(std::move(source)) {}

  Pipeline Read(const YAML::Node& root, const std::string& default_name) {
    if (!root.IsMap()) {
      Fail(root.Mark(), "a pipeline file is a mapping with 'passes:', not " + plugin::YamlKindName(root));
    }
    CheckKeys(root, kPipelineFields, "pipeline field");
    Pipeline pipeline;
    pipeline.name = root["name"] ? Text(root["name"], "name") : default_name;
    if (root["description"]) pipeline.description = Text(root["description"], "description");
    if (root["verify"]) pipeline.verify = Flag(root["verify"], "verify");
    if (root["input_properties"]) pipeline.input_properties = Properties(root["input_properties"]);
    const YAML::Node passes = root["passes"];
    if (!passes) Fail(root.Mark(), "the pipeline has no 'passes:' list; add one naming the passes in order");
    if (!passes.IsSequence()) {
      Fail(passes.Mark(), "'passes' must be a list of passes, not " + plugin::YamlKindName(passes));
    }
    for (const auto& entry : passes) pipeline.steps.push_back(Step(entry));
    return pipeline;
  }

 private:
  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& message) const {
    throw Error(ErrorKind::kPipeline, message, plugin::SpanOf(source_, mark));
  }

  void CheckKeys(const YAML::Node& map, const std::vector<std::string>& allowed, const std::string& what) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        Fail(entry.first.Mark(), "unknown " + what + " '" + key + "'; the fields are " + Join(allowed, ", "));
      }
    }
  }

  std::string Text(const YAML::Node& node, const std::string& field) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      Fail(node.Mark(), "'" + field + "' must be a non-empty text, not " + plugin::YamlKindName(node));
    }
    return node.Scalar();
  }

  bool Flag(const YAML::Node& node, const std::string& field) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      Fail(node.Mark(), "'" + field + "' must be true or false, not " + plugin::YamlKindName(node));
    }
    return value;
  }

  PropertySet Properties(const YAML::Node& node) const {
    if (!node.IsSequence()) {
      Fail(node.Mark(), "'input_properties' must be a list such as [SSAForm], not " + plugin::YamlKindName(node));
    }
    PropertySet properties;
    for (const auto& item : node) {
      if (!item.IsScalar()) {
        Fail(item.Mark(),
             "every entry of 'input_properties' must be a property name, not " + plugin::YamlKindName(item));
      }
      auto property = IRPropertyFromName(item.Scalar());
      if (!property) {
        std::vector<std::string> names;
        for (size_t i = 0; i < static_cast<size_t>(IRProperty::kCount); ++i) {
          names.push_back(IRPropertyName(static_cast<IRProperty>(i)));
        }
        Fail(item.Mark(), "unknown IR property '" + item.Scalar() + "'; the properties are " + Join(names, ", "));
      }
      properties.Add(*property);
    }
    return properties;
  }

  PipelineStep Step(const YAML::Node& entry) const {
    PipelineStep step;
    step.span = plugin::SpanOf(source_, entry.Mark());
    if (entry.IsScalar()) {
      step.pass = Text(entry, "pass name");
      return step;
    }
    if (!entry.IsMap()) {
      Fail(entry.Mark(), "a pipeline entry is a pass name or {name: <Pass>, options: {...}}, not " +
                             plugin::YamlKindName(entry));
    }
    CheckKeys(entry, kStepFields, "pipeline entry field");
    if (!entry["name"]) Fail(entry.Mark(), "this pipeline entry has no 'name:'; name the pass it runs");
    step.pass = Text(entry["name"], "name");
    const YAML::Node options = entry["options"];
    if (!options) return step;
    if (!options.IsMap()) {
      Fail(options.Mark(), "'options' of pass '" + step.pass + "' must be a mapping such as {key: value}, not " +
                               plugin::YamlKindName(options));
    }
    for (const auto& option : options) {
      const std::string key = option.first.Scalar();
      if (!option.second.IsScalar()) {
        Fail(option.second.Mark(), "option '" + key + "' of pass '" + step.pass +
                                       "' must be a bool, number or text, not " + plugin::YamlKindName(option.second));
      }
      step.options.Set(key, ScalarValue(option.second));
      step.option_spans[key] = plugin::SpanOf(source_, option.second.Mark());
    }
    return step;
  }

  std::string source_;
};

fs::path PipelineDir() { return plugin::DataDir() / "pipelines"; }

bool LooksLikePath(const std::string& name_or_path) {
  auto extension = fs::path(name_or_path).extension();
  return name_or_path.find('/') != std::string::npos || extension == ".yaml" || extension == ".yml";
}

}  // namespace

std::vector<std::string> Pipeline::pass_names() const {
  std::vector<std::string> names;
  for (const auto& step : steps) names.push_back(step.pass);
  return names;
}

Pipeline ParsePipelineFile(const fs::path& path) {
  YAML::Node root = plugin::LoadYamlFile(path, ErrorKind::kPipeline, "pipeline file");
  Pipeline pipeline = PipelineReader(path.string()).Read(root, path.stem().string());
  pipeline.source = path;
  return pipeline;
}

Pipeline ParsePipelineString(const std::string& yaml, const std::string& source_name) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    throw Error(ErrorKind::kPipeline,
                "malformed YAML in pipeline: " + e.msg + "; fix the syntax at or just before this line",
                plugin::SpanOf(source_name, e.mark));
  }
  return PipelineReader(source_name).Read(root, fs::path(source_name).stem().string());
}

Pipeline LoadPipeline(const std::string& name_or_path) {
  if (LooksLikePath(name_or_path)) return ParsePipelineFile(name_or_path);
  fs::path file = PipelineDir() / (name_or_path + ".yaml");
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    auto known = ListPipelines();
    throw Error(ErrorKind::kPipeline, "no pipeline named '" + name_or_path + "' in " + PipelineDir().string() +
                                          "; the pipelines are " + (known.empty() ? "none" : Join(known, ", ")) +
                                          ", or give the path of a pipeline .yaml file");
  }
  return ParsePipelineFile(file);
}

std::vector<std::string> ListPipelines() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(PipelineDir(), ec)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace pypto::pass
