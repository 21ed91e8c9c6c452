// Reading the core's YAML files (plugin manifests, pipelines) so that every
// problem points at a file and line the user can open.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <string>

#include "pypto/support/error.h"

namespace pypto::plugin {

// The location of a YAML node (yaml-cpp marks are 0-based; spans are 1-based).
// A null mark gives a span at line 1 so the file is still named.
Span SpanOf(const std::filesystem::path& file, const YAML::Mark& mark);

// Parses `file`; an unreadable file is an IO error, bad syntax an error of
// `kind` at the offending line. `what` names the file's role ("plugin manifest").
YAML::Node LoadYamlFile(const std::filesystem::path& file, ErrorKind kind, const std::string& what);

// A readable description of a node's YAML kind ("a list", "a mapping", ...).
std::string YamlKindName(const YAML::Node& node);

}  // namespace pypto::plugin
