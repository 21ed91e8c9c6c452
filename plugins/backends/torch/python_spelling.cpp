#include "python_spelling.h"

#include <cctype>
#include <cmath>
#include <iomanip>
#include <regex>
#include <sstream>
#include "pypto/support/strings.h"

namespace pypto::torch_codegen {

namespace {

const std::set<std::string>& PythonKeywords() {
  static const std::set<std::string> keywords = {
      "False", "None",   "True",    "and",      "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",      "elif", "else",   "except", "finally",  "for",
      "from",  "global", "if",      "import",   "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",   "raise",   "return",   "try",  "while",  "with",   "yield",    "self"};
  return keywords;
}

std::string Identifier(const std::string& hint) {
  std::string name;
  for (char c : hint) name += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "v_" + name;
  return name;
}

}  // namespace

NameTable::NameTable(const std::set<std::string>& reserved) : used_(reserved) {
  used_.insert(PythonKeywords().begin(), PythonKeywords().end());
}

std::string NameTable::Fresh(const std::string& hint) {
  std::string base = Identifier(hint);
  std::string name = base;
  for (int i = 1; used_.count(name); ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

std::set<std::string> PreludeGlobals(const std::string& prelude) {
  // Top-level definitions start in column 0: "def f(", "class C", "NAME =", "a = b = ...", "import m", "from m import n".
  static const std::regex definition(R"(^(?:def|class)\s+(\w+)|^(\w+)\s*(?:=|:))");
  // The names of a chain `a = b = c = value` after the first; the lookahead leaves each `=` to the next name.
  static const std::regex assigned_too(R"(=\s*(\w+)\s*(?==))");
  static const std::regex imported(R"(^(?:import\s+(\w+)|from\s+\S+\s+import\s+(\w+)))");
  std::set<std::string> names;
  std::istringstream lines(prelude);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_search(line, m, definition)) names.insert(m[1].matched ? m[1].str() : m[2].str());
    if (std::regex_search(line, m, imported)) names.insert(m[1].matched ? m[1].str() : m[2].str());
    for (auto it = std::sregex_iterator(line.begin(), line.end(), assigned_too); it != std::sregex_iterator(); ++it) {
      names.insert((*it)[1].str());
    }
  }
  return names;
}

std::optional<std::string> TorchDType(ir::DataType dtype) {
  using ir::DataType;
  static const std::vector<std::pair<DataType, const char*>> names = {
      {DataType::BOOL, "torch.bool"},       {DataType::INT8, "torch.int8"},          {DataType::INT16, "torch.int16"},
      {DataType::INT32, "torch.int32"},     {DataType::INT64, "torch.int64"},        {DataType::INDEX, "torch.int64"},
      {DataType::UINT8, "torch.uint8"},     {DataType::UINT16, "torch.uint16"},      {DataType::UINT32, "torch.uint32"},
      {DataType::UINT64, "torch.uint64"},   {DataType::FP16, "torch.float16"},       {DataType::BF16, "torch.bfloat16"},
      {DataType::FP32, "torch.float32"},    {DataType::FP64, "torch.float64"},
      {DataType::FP8E4M3FN, "torch.float8_e4m3fn"}, {DataType::FP8E5M2, "torch.float8_e5m2"}};
  for (const auto& [d, name] : names) {
    if (d == dtype) return std::string(name);
  }
  return std::nullopt;
}

std::string FloatLiteral(double value) {
  if (std::isnan(value)) return "math.nan";
  if (std::isinf(value)) return value > 0 ? "math.inf" : "-math.inf";
  std::ostringstream out;
  out << std::setprecision(17) << value;
  std::string text = out.str();
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string StringLiteral(const std::string& text) {
  return QuotedLiteral(text, '\'');
}

std::string OpFunctionName(const std::string& op_name) {
  std::string name = op_name;
  for (char& c : name) {
    if (c == '.') c = '_';
  }
  return name;
}

}  // namespace pypto::torch_codegen
