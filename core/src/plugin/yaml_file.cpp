#include "yaml_file.h"

#include <system_error>

namespace pypto::plugin {

Span SpanOf(const std::filesystem::path& file, const YAML::Mark& mark) {
  if (mark.is_null()) return Span(file.string(), 1, 1);
  return Span(file.string(), mark.line + 1, mark.column + 1);
}

YAML::Node LoadYamlFile(const std::filesystem::path& file, ErrorKind kind, const std::string& what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    throw Error(ErrorKind::kIO, what + " '" + file.string() + "' does not exist or is not a file");
  }
  try {
    return YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw Error(ErrorKind::kIO, "cannot read " + what + " '" + file.string() + "'; check its permissions");
  } catch (const YAML::Exception& e) {
    throw Error(kind, "malformed YAML in " + what + ": " + e.msg + "; fix the syntax at or just before this line",
                SpanOf(file, e.mark));
  }
}

std::string YamlKindName(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "the scalar '" + node.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Undefined: break;
  }
  return "an undefined node";
}

}  // namespace pypto::plugin
