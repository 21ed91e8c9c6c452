// IR <-> MessagePack, written once over the field lists of reflection.h.
//
// Document: {"format": "pypto-ir", "version": 1, "root": <node>}. A node's
// first occurrence is {"id", "type", "span", "fields"[, "leading_comments"]};
// later ones are {"ref": id}, which keeps sharing and variable identity.
// Field encodings: enums as their integer, DataType as its code, Attrs as
// [[key, [kind, value]], ...], reflectable structs as maps, optionals as null
// or the value. Reading rebuilds each node by default-constructing its class
// and filling the same field list, checking every value on the way.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "pypto/ir/reflection.h"
#include "pypto/ir/serialize.h"
#include "pypto/support/error.h"

namespace pypto::ir {
namespace {

using Json = nlohmann::json;

constexpr const char* kFormatName = "pypto-ir";
constexpr int64_t kFormatVersion = 1;

// ------------------------------------------------------------ writing

class Writer {
 public:
  Json Document(const Node* root) {
    return Json{{"format", kFormatName}, {"version", kFormatVersion}, {"root", NodeJson(root)}};
  }

 private:
  Json NodeJson(const Node* node) {
    if (node == nullptr) return nullptr;
    if (auto seen = ids_.find(node); seen != ids_.end()) return Json{{"ref", seen->second}};
    int64_t id = static_cast<int64_t>(ids_.size());
    ids_.emplace(node, id);
    Json out{{"id", id}, {"type", node->type_name()}, {"span", SpanJson(node->span)}};
    out["fields"] = DispatchNode(*node, [&](const auto& concrete) { return StructJson(concrete); });
    if (auto stmt = As<Stmt>(node)) out["leading_comments"] = stmt->leading_comments;
    return out;
  }

  static Json SpanJson(const Span& span) {
    return Json::array({span.filename, span.begin_line, span.begin_col, span.end_line, span.end_col});
  }

  template <class T>
  Json StructJson(const T& object) {
    Json fields = Json::object();
    ForEachFieldOf(object, [&](const char* name, const auto& field, FieldRole) { fields[name] = FieldJson(field); });
    return fields;
  }

  template <class T>
  Json FieldJson(const T& value) {
    if constexpr (IsRef<T>::value) {
      return NodeJson(value.get());
    } else if constexpr (IsVector<T>::value) {
      Json items = Json::array();
      for (const auto& item : value) items.push_back(FieldJson(item));
      return items;
    } else if constexpr (IsOptional<T>::value) {
      return value ? FieldJson(*value) : Json(nullptr);
    } else if constexpr (std::is_same_v<T, Attrs>) {
      return AttrsJson(value);
    } else if constexpr (IsReflectableStruct<T>::value) {
      return StructJson(value);
    } else if constexpr (std::is_same_v<T, DataType>) {
      return static_cast<int>(value.code());
    } else if constexpr (std::is_same_v<T, EnumAttr>) {
      return Json::array({value.type, value.value});
    } else if constexpr (std::is_enum_v<T>) {
      return static_cast<int64_t>(value);
    } else {
      static_assert(std::is_arithmetic_v<T> || std::is_same_v<T, std::string>, "Serialize: unsupported field type");
      return value;
    }
  }

  Json AttrsJson(const Attrs& attrs) {
    Json entries = Json::array();
    for (const auto& [key, value] : attrs) {
      Json payload = std::visit([&](const auto& v) { return FieldJson(v); }, value);
      entries.push_back(Json::array({key, Json::array({AttrValueKindName(value), std::move(payload)})}));
    }
    return entries;
  }

  std::unordered_map<const Node*, int64_t> ids_;
};

// ------------------------------------------------------------ reading

const NodeKind* FindKind(const std::string& type_name) {
  static const std::unordered_map<std::string, NodeKind> kinds = [] {
    std::unordered_map<std::string, NodeKind> table;
#define PYPTO_X(T) table.emplace(#T, NodeKind::k##T);
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
    return table;
  }();
  auto it = kinds.find(type_name);
  return it == kinds.end() ? nullptr : &it->second;
}

const char* JsonKind(const Json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number_float()) return "a float";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_null()) return "null";
  if (j.is_array()) return "a list";
  if (j.is_object()) return "a map";
  return "binary data";
}

constexpr int kBinaryOpCount = 0
#define PYPTO_X(name, sym, cmp) +1
    PYPTO_BINARY_OPS(PYPTO_X)
#undef PYPTO_X
    ;
constexpr int kUnaryOpCount = 0
#define PYPTO_X(name, sym) +1
    PYPTO_UNARY_OPS(PYPTO_X)
#undef PYPTO_X
    ;

template <class E>
bool IsKnownEnumValue(int64_t value) {
  if constexpr (std::is_same_v<E, BinaryOp>) {
    return value >= 0 && value < kBinaryOpCount;
  } else if constexpr (std::is_same_v<E, UnaryOp>) {
    return value >= 0 && value < kUnaryOpCount;
  } else {
    for (const auto& [known, name] : EnumInfo<E>::Values()) {
      if (static_cast<int64_t>(known) == value) return true;
    }
    return false;
  }
}

template <class E>
const char* EnumTypeName() {
  if constexpr (std::is_same_v<E, BinaryOp>) {
    return "BinaryOp";
  } else if constexpr (std::is_same_v<E, UnaryOp>) {
    return "UnaryOp";
  } else {
    return EnumInfo<E>::kName;
  }
}

std::string WithArticle(const std::string& noun) {
  bool vowel = !noun.empty() && std::string("AEIOUaeiou").find(noun.front()) != std::string::npos;
  return (vowel ? "an " : "a ") + noun;
}

// What a Ref<T> field accepts, for messages.
template <class T>
std::string ExpectedNodeName() {
  if constexpr (std::is_same_v<T, Expr>) {
    return "an expression";
  } else if constexpr (std::is_same_v<T, Stmt>) {
    return "a statement";
  } else if constexpr (std::is_same_v<T, Type>) {
    return "a type";
  } else {
    return WithArticle(NodeKindName(T::kKind));
  }
}

// Nodes that exist once per value: reading must return the canonical object.
NodePtr Canonical(const Ref<Op>& op) { return Op::Get(op->name); }
NodePtr Canonical(const Ref<UnknownType>&) { return UnknownType::Make(); }
template <class T>
NodePtr Canonical(const Ref<T>& node) {
  return node;
}

class Reader {
 public:
  NodePtr Document(const Json& document) {
    if (!document.is_object()) {
      Fail("expected a header map {\"format\": \"pypto-ir\", ...} but the data holds " +
           std::string(JsonKind(document)) + "; this is not serialized PyPTO IR");
    }
    const Json& format = Member(document, "format", "the header");
    if (!format.is_string() || format.get<std::string>() != kFormatName) {
      Fail("the header's \"format\" is " + format.dump() + ", expected \"pypto-ir\"; this is not serialized PyPTO IR");
    }
    const Json& version = Member(document, "version", "the header");
    if (!version.is_number_integer() || version.get<int64_t>() != kFormatVersion) {
      Fail("the data has format version " + version.dump() + " but this build reads version " +
           std::to_string(kFormatVersion) + "; re-serialize it with a matching PyPTO");
    }
    return NodeOf(Member(document, "root", "the header"));
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    std::string where = path_.empty() ? "" : " (at " + path_ + ")";
    ThrowValueError("Deserialize: " + what + where);
  }

  // Appends to the path for the lifetime of the object.
  class PathGuard {
   public:
    PathGuard(std::string& path, const std::string& step) : path_(path), size_(path.size()) {
      if (!path_.empty() && step.front() != '[') path_ += '.';
      path_ += step;
    }
    ~PathGuard() { path_.resize(size_); }
    PathGuard(const PathGuard&) = delete;
    PathGuard& operator=(const PathGuard&) = delete;

   private:
    std::string& path_;
    size_t size_;
  };

  const Json& Member(const Json& object, const char* key, const std::string& owner) const {
    auto it = object.find(key);
    if (it == object.end()) Fail(owner + " has no \"" + key + "\" entry");
    return *it;
  }

  NodePtr NodeOf(const Json& j) {
    if (j.is_null()) return nullptr;
    if (!j.is_object()) Fail("expected a node (a map) but found " + std::string(JsonKind(j)));
    if (j.contains("ref")) return Reference(j);
    int64_t id = Integer<int64_t>(Member(j, "id", "a node"), "node id");
    if (nodes_.count(id) != 0) Fail("node id " + std::to_string(id) + " is defined twice");
    const Json& type = Member(j, "type", "node " + std::to_string(id));
    if (!type.is_string()) Fail("node " + std::to_string(id) + " has a \"type\" that is " + JsonKind(type));
    const NodeKind* kind = FindKind(type.get<std::string>());
    if (kind == nullptr) {
      Fail("unknown node type '" + type.get<std::string>() + "'; the data may come from a newer PyPTO");
    }
    NodePtr node = Build(*kind, j);
    nodes_.emplace(id, node);
    return node;
  }

  NodePtr Reference(const Json& j) {
    if (j.size() != 1) Fail("a reference {\"ref\": id} has other entries besides \"ref\"");
    int64_t id = Integer<int64_t>(j["ref"], "node reference");
    auto it = nodes_.find(id);
    if (it == nodes_.end()) Fail("reference to node " + std::to_string(id) + ", which is not defined before it");
    return it->second;
  }

  NodePtr Build(NodeKind kind, const Json& j) {
    switch (kind) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return BuildAs<T>(j);
      PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
    }
    ThrowInternalError("Deserialize: node kind " + std::to_string(static_cast<int>(kind)) + " has no reader");
  }

  template <class T>
  NodePtr BuildAs(const Json& j) {
    auto node = std::make_shared<T>();
    node->span = SpanOf(Member(j, "span", NodeKindName(T::kKind)));
    FillStruct(Member(j, "fields", NodeKindName(T::kKind)), *node, NodeKindName(T::kKind));
    if constexpr (std::is_base_of_v<Stmt, T>) {
      const Json& comments = Member(j, "leading_comments", NodeKindName(T::kKind));
      PathGuard guard(path_, "leading_comments");
      FieldOf(comments, node->leading_comments);
    }
    return Canonical(Ref<T>(std::move(node)));
  }

  Span SpanOf(const Json& j) {
    if (!j.is_array() || j.size() != 5 || !j[0].is_string()) {
      Fail("a span must be [file, begin_line, begin_col, end_line, end_col] but is " + j.dump());
    }
    return Span(j[0].get<std::string>(), Integer<int>(j[1], "span line"), Integer<int>(j[2], "span column"),
                Integer<int>(j[3], "span line"), Integer<int>(j[4], "span column"));
  }

  template <class T>
  void FillStruct(const Json& fields, T& object, const std::string& owner) {
    if (!fields.is_object()) Fail("the fields of " + owner + " must be a map but are " + JsonKind(fields));
    size_t filled = 0;
    object.ForEachField([&](const char* name, auto& field, FieldRole) {
      const Json& value = Member(fields, name, owner);
      PathGuard guard(path_, name);
      FieldOf(value, field);
      ++filled;
    });
    if (filled == fields.size()) return;
    for (const auto& [key, value] : fields.items()) {
      bool known = false;
      object.ForEachField([&](const char* name, auto&, FieldRole) { known = known || key == name; });
      if (!known) Fail(owner + " has no field '" + key + "'; the data may come from a newer PyPTO");
    }
  }

  template <class T>
  void FieldOf(const Json& j, T& out) {
    if constexpr (IsRef<T>::value) {
      using Element = typename IsRef<T>::element;
      NodePtr node = NodeOf(j);
      if (node && !Element::classof(node->kind())) {
        Fail("expected " + ExpectedNodeName<Element>() + " but found " + WithArticle(node->type_name()));
      }
      out = std::static_pointer_cast<const Element>(node);
    } else if constexpr (IsVector<T>::value) {
      if (!j.is_array()) Fail("expected a list but found " + std::string(JsonKind(j)));
      out.clear();
      out.reserve(j.size());
      for (size_t i = 0; i < j.size(); ++i) {
        PathGuard guard(path_, "[" + std::to_string(i) + "]");
        typename T::value_type item{};
        FieldOf(j[i], item);
        out.push_back(std::move(item));
      }
    } else if constexpr (IsOptional<T>::value) {
      if (j.is_null()) {
        out.reset();
        return;
      }
      typename T::value_type value{};
      FieldOf(j, value);
      out = std::move(value);
    } else if constexpr (std::is_same_v<T, Attrs>) {
      AttrsOf(j, out);
    } else if constexpr (IsReflectableStruct<T>::value) {
      FillStruct(j, out, "the struct");
    } else if constexpr (std::is_same_v<T, bool>) {
      if (!j.is_boolean()) Fail("expected a boolean but found " + std::string(JsonKind(j)));
      out = j.template get<bool>();
    } else if constexpr (std::is_same_v<T, double>) {
      if (!j.is_number()) Fail("expected a number but found " + std::string(JsonKind(j)));
      out = j.template get<double>();
    } else if constexpr (std::is_integral_v<T>) {
      out = Integer<T>(j, "value");
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!j.is_string()) Fail("expected a string but found " + std::string(JsonKind(j)));
      out = j.template get<std::string>();
    } else if constexpr (std::is_same_v<T, DataType>) {
      int code = Integer<int>(j, "DataType code");
      auto dtype = DataType::FromCode(code);
      if (!dtype) Fail("unknown DataType code " + std::to_string(code));
      out = *dtype;
    } else if constexpr (std::is_same_v<T, EnumAttr>) {
      if (!j.is_array() || j.size() != 2 || !j[0].is_string()) {
        Fail("an enum value must be [enum name, integer] but is " + j.dump());
      }
      out = EnumAttr{j[0].template get<std::string>(), Integer<int>(j[1], "enum value")};
    } else {
      static_assert(std::is_enum_v<T>, "Deserialize: unsupported field type");
      auto value = Integer<int64_t>(j, EnumTypeName<T>());
      if (!IsKnownEnumValue<T>(value)) Fail(std::to_string(value) + " is not a " + EnumTypeName<T>() + " value");
      out = static_cast<T>(value);
    }
  }

  template <class T>
  T Integer(const Json& j, const std::string& what) const {
    if (!j.is_number_integer()) Fail("expected an integer " + what + " but found " + JsonKind(j));
    bool fits = j.is_number_unsigned() ? std::in_range<T>(j.get<uint64_t>()) : std::in_range<T>(j.get<int64_t>());
    if (!fits) {
      Fail("the " + what + " " + j.dump() + " is out of range [" + std::to_string(std::numeric_limits<T>::min()) +
           ", " + std::to_string(std::numeric_limits<T>::max()) + "]");
    }
    return j.is_number_unsigned() ? static_cast<T>(j.get<uint64_t>()) : static_cast<T>(j.get<int64_t>());
  }

  void AttrsOf(const Json& j, Attrs& out) {
    if (!j.is_array()) Fail("attributes must be a list of [key, [kind, value]] but are " + std::string(JsonKind(j)));
    for (size_t i = 0; i < j.size(); ++i) {
      const Json& entry = j[i];
      bool well_formed = entry.is_array() && entry.size() == 2 && entry[0].is_string() && entry[1].is_array() &&
                         entry[1].size() == 2 && entry[1][0].is_string();
      if (!well_formed) Fail("attribute entry " + std::to_string(i) + " is not [key, [kind, value]]: " + entry.dump());
      std::string key = entry[0].get<std::string>();
      PathGuard guard(path_, "[\"" + key + "\"]");
      out.mutable_entries().emplace_back(key, AttrValueOf(entry[1][0].get<std::string>(), entry[1][1]));
    }
  }

  AttrValue AttrValueOf(const std::string& kind, const Json& j) {
    std::optional<AttrValue> value;
    [&]<size_t... I>(std::index_sequence<I...>) {
      (TryAttrAlternative<I>(kind, j, value), ...);
    }(std::make_index_sequence<std::variant_size_v<AttrValue>>());
    if (!value) Fail("unknown attribute value kind '" + kind + "'");
    return std::move(*value);
  }

  template <size_t I>
  void TryAttrAlternative(const std::string& kind, const Json& j, std::optional<AttrValue>& value) {
    AttrValue candidate(std::in_place_index<I>);
    if (value || kind != AttrValueKindName(candidate)) return;
    FieldOf(j, std::get<I>(candidate));
    value = std::move(candidate);
  }

  std::unordered_map<int64_t, NodePtr> nodes_;
  std::string path_;
};

// Both MessagePack parsing and Reader recurse once per nesting level, so a
// crafted document could exhaust the stack. This pass only counts levels and
// stops at the limit, which leaves room for about 2000 nested IR nodes (two
// levels each) on a default 8 MiB stack with a wide margin.
constexpr size_t kMaxNesting = 4096;

class NestingCheck : public nlohmann::json_sax<Json> {
 public:
  bool too_deep() const { return too_deep_; }

  bool start_object(std::size_t) override { return Enter(); }
  bool start_array(std::size_t) override { return Enter(); }
  bool end_object() override { return Leave(); }
  bool end_array() override { return Leave(); }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool key(string_t&) override { return true; }
  // Syntax errors are reported by the real parse that follows.
  bool parse_error(std::size_t, const std::string&, const Json::exception&) override { return false; }

 private:
  bool Enter() {
    too_deep_ = ++depth_ > kMaxNesting;
    return !too_deep_;
  }
  bool Leave() {
    --depth_;
    return true;
  }

  size_t depth_ = 0;
  bool too_deep_ = false;
};

bool NestsTooDeep(const std::vector<uint8_t>& bytes) {
  NestingCheck nesting;
  Json::sax_parse(bytes, &nesting, Json::input_format_t::msgpack);
  return nesting.too_deep();
}

std::string NestingLimitText() {
  return std::to_string(kMaxNesting) + " levels (about " + std::to_string(kMaxNesting / 2) + " nested IR nodes)";
}

std::vector<uint8_t> ReadBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(ErrorKind::kIO, "LoadFromFile: cannot open '" + path.string() + "': " + std::strerror(errno));
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    throw Error(ErrorKind::kIO, "LoadFromFile: reading '" + path.string() + "' failed: " + std::strerror(errno));
  }
  return bytes;
}

}  // namespace

std::vector<uint8_t> Serialize(const NodePtr& node) {
  std::vector<uint8_t> bytes = Json::to_msgpack(Writer().Document(node.get()));
  if (NestsTooDeep(bytes)) {
    ThrowValueError("Serialize: the IR nests deeper than " + NestingLimitText() +
                    ", more than Deserialize reads back; split the deeply nested expression with assignments");
  }
  return bytes;
}

NodePtr Deserialize(const std::vector<uint8_t>& bytes) {
  Json document;
  try {
    if (NestsTooDeep(bytes)) {
      ThrowValueError("Deserialize: the data nests deeper than " + NestingLimitText() +
                      ", the most Deserialize reads; it is corrupted or was not written by Serialize");
    }
    document = Json::from_msgpack(bytes);
  } catch (const nlohmann::json::exception& e) {
    ThrowValueError("Deserialize: the " + std::to_string(bytes.size()) +
                    " bytes are not valid MessagePack (truncated or corrupted data): " + e.what());
  }
  try {
    return Reader().Document(document);
  } catch (const nlohmann::json::exception& e) {
    ThrowValueError(std::string("Deserialize: malformed PyPTO IR: ") + e.what());
  }
}

void SaveToFile(const NodePtr& node, const std::filesystem::path& path) {
  std::vector<uint8_t> bytes = Serialize(node);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    throw Error(ErrorKind::kIO, "SaveToFile: cannot open '" + path.string() + "' for writing: " + std::strerror(errno));
  }
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(ErrorKind::kIO, "SaveToFile: writing '" + path.string() + "' failed: " + std::strerror(errno));
}

NodePtr LoadFromFile(const std::filesystem::path& path) {
  std::vector<uint8_t> bytes = ReadBytes(path);
  try {
    return Deserialize(bytes);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kValue) throw;
    ThrowValueError("LoadFromFile '" + path.string() + "': " + e.message());
  }
}

std::string SerializeToJson(const NodePtr& node, int indent) {
  return Writer().Document(node.get()).dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace pypto::ir
