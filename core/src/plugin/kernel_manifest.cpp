#include "kernel_manifest.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <system_error>

#include "pypto/ir/dtype.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"
#include "yaml_file.h"

namespace pypto::plugin {
namespace fs = std::filesystem;

const char* KernelParamDirectionName(KernelParamDirection direction) {
  switch (direction) {
    case KernelParamDirection::kIn: return "In";
    case KernelParamDirection::kOut: return "Out";
    case KernelParamDirection::kInOut: return "InOut";
  }
  return "In";
}

namespace {

const std::vector<std::string> kKernelFields = {"name", "core", "source", "tensors", "scalars", "multiple_of",
                                                "description"};
const std::vector<std::string> kRequiredKernelFields = {"name", "core", "source", "tensors"};
const std::vector<std::string> kTensorFields = {"name", "dtype", "shape", "direction"};
const std::vector<std::string> kScalarFields = {"name", "dtype"};
const std::vector<std::string> kCores = {"AIC", "AIV"};
const std::vector<std::string> kDirections = {"In", "Out", "InOut"};

bool IsIdentifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

class KernelSpecReader {
 public:
  explicit KernelSpecReader(fs::path manifest_path) : path_(std::move(manifest_path)) {}

  std::vector<KernelSpec> ReadAll(const YAML::Node& node) const {
    if (!node.IsSequence() || node.size() == 0) {
      Fail(node.Mark(), "manifest field 'kernels' must be a non-empty list of kernels, each with " +
                            Join(kRequiredKernelFields, ", ") + ", not " + YamlKindName(node));
    }
    std::vector<KernelSpec> kernels;
    std::set<std::string> names;
    for (const auto& entry : node) {
      KernelSpec kernel = Read(entry);
      if (!names.insert(kernel.name).second) {
        Fail(entry.Mark(), "two kernels are named '" + kernel.name + "'; give each kernel its own name");
      }
      kernels.push_back(std::move(kernel));
    }
    return kernels;
  }

 private:
  [[noreturn]] void Fail(const YAML::Mark& mark, const std::string& message) const {
    throw Error(ErrorKind::kPlugin, message, SpanOf(path_, mark));
  }

  void CheckFields(const YAML::Node& node, const std::string& what, const std::vector<std::string>& known,
                   const std::vector<std::string>& required) const {
    if (!node.IsMap()) {
      Fail(node.Mark(), what + " must be a mapping with " + Join(required, ", ") + ", not " + YamlKindName(node));
    }
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      if (std::count(known.begin(), known.end(), key) == 0) {
        Fail(entry.first.Mark(), "unknown field '" + key + "' in " + what + "; its fields are " + Join(known, ", "));
      }
    }
    for (const auto& field : required) {
      if (!node[field]) Fail(node.Mark(), what + " has no '" + field + "'; add it");
    }
  }

  std::string Text(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar() || node.Scalar().empty()) {
      Fail(node.Mark(), what + " must be a non-empty text, not " + YamlKindName(node));
    }
    return node.Scalar();
  }

  std::string Name(const YAML::Node& node, const std::string& what) const {
    std::string name = Text(node, what);
    if (!IsIdentifier(name)) Fail(node.Mark(), what + " '" + name + "' must be an identifier (letters, digits, _)");
    return name;
  }

  std::string OneOf(const YAML::Node& node, const std::string& what, const std::vector<std::string>& choices) const {
    std::string value = Text(node, what);
    if (std::count(choices.begin(), choices.end(), value) == 0) {
      Fail(node.Mark(), "unknown " + what + " '" + value + "'; it is one of " + Join(choices, ", "));
    }
    return value;
  }

  std::string DType(const YAML::Node& node, const std::string& what) const {
    std::string name = Text(node, what);
    if (!ir::DataType::FromName(name)) {
      Fail(node.Mark(), "unknown dtype '" + name + "' for " + what + "; use a PyPTO dtype name such as FP32, FP16, "
                        "BF16, INT32");
    }
    return name;
  }

  KernelSpec Read(const YAML::Node& entry) const {
    CheckFields(entry, "a kernel entry", kKernelFields, kRequiredKernelFields);
    KernelSpec kernel;
    kernel.line = static_cast<int>(entry.Mark().line) + 1;
    kernel.name = Name(entry["name"], "the kernel name");
    const std::string of = " of kernel '" + kernel.name + "'";
    kernel.core = OneOf(entry["core"], "core" + of, kCores);
    kernel.source = Source(entry["source"], of);
    if (entry["description"]) kernel.description = Text(entry["description"], "the description" + of);
    kernel.tensors = Tensors(entry["tensors"], of);
    if (entry["scalars"]) kernel.scalars = Scalars(entry["scalars"], of);
    CheckParamNames(entry, kernel);
    if (entry["multiple_of"]) kernel.multiple_of = MultipleOf(entry["multiple_of"], kernel, of);
    return kernel;
  }

  std::string Source(const YAML::Node& node, const std::string& of) const {
    std::string source = Text(node, "the source" + of);
    std::error_code ec;
    fs::path path = path_.parent_path() / source;
    if (!fs::is_regular_file(path, ec)) {
      Fail(node.Mark(), "the source" + of + " '" + source + "' does not exist at " + path.string() +
                            "; name a C++ file relative to the manifest's folder");
    }
    return source;
  }

  std::vector<KernelTensorParam> Tensors(const YAML::Node& node, const std::string& of) const {
    if (!node.IsSequence()) {
      Fail(node.Mark(), "'tensors'" + of + " must be a list such as [{name: x, dtype: FP32, shape: [M, 64], "
                        "direction: In}], not " + YamlKindName(node));
    }
    std::vector<KernelTensorParam> tensors;
    for (const auto& item : node) {
      CheckFields(item, "a tensor parameter" + of, kTensorFields, kTensorFields);
      KernelTensorParam param;
      param.name = Name(item["name"], "a tensor parameter name" + of);
      const std::string what = "tensor '" + param.name + "'" + of;
      param.dtype = DType(item["dtype"], what);
      param.shape = Shape(item["shape"], what);
      std::string direction = OneOf(item["direction"], "direction of " + what, kDirections);
      param.direction = direction == "In"    ? KernelParamDirection::kIn
                        : direction == "Out" ? KernelParamDirection::kOut
                                             : KernelParamDirection::kInOut;
      tensors.push_back(std::move(param));
    }
    return tensors;
  }

  std::vector<KernelDim> Shape(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence() || node.size() == 0) {
      Fail(node.Mark(), "the shape of " + what + " must be a non-empty list of sizes and symbols such as [M, 64], "
                        "not " + YamlKindName(node));
    }
    std::vector<KernelDim> shape;
    for (const auto& item : node) {
      if (!item.IsScalar()) Fail(item.Mark(), "a dim of " + what + " must be a size or a symbol, not " + YamlKindName(item));
      KernelDim dim;
      int64_t size = 0;
      if (YAML::convert<int64_t>::decode(item, size)) {
        if (size < 1) Fail(item.Mark(), "a static dim of " + what + " must be at least 1, not " + item.Scalar());
        dim.size = size;
      } else if (IsIdentifier(item.Scalar())) {
        dim.symbol = item.Scalar();
      } else {
        Fail(item.Mark(), "the dim '" + item.Scalar() + "' of " + what + " is neither a size nor a symbol name");
      }
      shape.push_back(dim);
    }
    return shape;
  }

  std::vector<KernelScalarParam> Scalars(const YAML::Node& node, const std::string& of) const {
    if (!node.IsSequence()) {
      Fail(node.Mark(), "'scalars'" + of + " must be a list such as [{name: eps, dtype: FP32}], not " +
                            YamlKindName(node));
    }
    std::vector<KernelScalarParam> scalars;
    for (const auto& item : node) {
      CheckFields(item, "a scalar parameter" + of, kScalarFields, kScalarFields);
      KernelScalarParam param;
      param.name = Name(item["name"], "a scalar parameter name" + of);
      param.dtype = DType(item["dtype"], "scalar '" + param.name + "'" + of);
      scalars.push_back(std::move(param));
    }
    return scalars;
  }

  void CheckParamNames(const YAML::Node& entry, const KernelSpec& kernel) const {
    std::set<std::string> names;
    for (const auto& t : kernel.tensors) {
      if (!names.insert(t.name).second) Fail(entry.Mark(), "kernel '" + kernel.name + "' has two parameters named '" + t.name + "'");
    }
    for (const auto& s : kernel.scalars) {
      if (!names.insert(s.name).second) Fail(entry.Mark(), "kernel '" + kernel.name + "' has two parameters named '" + s.name + "'");
    }
  }

  std::map<std::string, int64_t> MultipleOf(const YAML::Node& node, const KernelSpec& kernel,
                                            const std::string& of) const {
    if (!node.IsMap()) {
      Fail(node.Mark(), "'multiple_of'" + of + " must map shape symbols to divisors such as {M: 64}, not " +
                            YamlKindName(node));
    }
    std::set<std::string> symbols;
    for (const auto& t : kernel.tensors) {
      for (const auto& d : t.shape) {
        if (!d.is_static()) symbols.insert(d.symbol);
      }
    }
    std::map<std::string, int64_t> multiple_of;
    for (const auto& entry : node) {
      const std::string symbol = entry.first.Scalar();
      if (!symbols.count(symbol)) {
        Fail(entry.first.Mark(), "'multiple_of'" + of + " names '" + symbol + "', which no tensor shape uses; the "
                                 "symbols are " + (symbols.empty() ? std::string("none") : Join({symbols.begin(), symbols.end()}, ", ")));
      }
      int64_t divisor = 0;
      if (!entry.second.IsScalar() || !YAML::convert<int64_t>::decode(entry.second, divisor) || divisor < 1) {
        Fail(entry.second.Mark(), "'multiple_of'" + of + " for '" + symbol + "' must be a positive integer");
      }
      multiple_of[symbol] = divisor;
    }
    return multiple_of;
  }

  fs::path path_;
};

}  // namespace

std::vector<KernelSpec> ReadKernelSpecs(const YAML::Node& node, const fs::path& manifest_path) {
  return KernelSpecReader(manifest_path).ReadAll(node);
}

}  // namespace pypto::plugin
