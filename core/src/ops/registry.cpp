#include "pypto/ops/registry.h"

#include <algorithm>

#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::ops {

using namespace pypto::ir;

const char* OpCategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::kTensorOp: return "TensorOp";
    case OpCategory::kTileOp: return "TileOp";
    case OpCategory::kSystemOp: return "SystemOp";
    case OpCategory::kSyncOp: return "SyncOp";
    case OpCategory::kCrossCoreOp: return "CrossCoreOp";
    case OpCategory::kArrayOp: return "ArrayOp";
    case OpCategory::kCommOp: return "CommOp";
  }
  return "?";
}

bool IsHostOrchestrator(const ir::Function& function) {
  return function.level == ir::Level::HOST && function.role == ir::Role::Orchestrator;
}

const char* PlacementName(Placement p) {
  switch (p) {
    case Placement::kAnywhere: return "anywhere";
    case Placement::kInCoreOnly: return "InCore code only";
    case Placement::kOrchestrationOnly: return "outside InCore code only";
    case Placement::kHostOnly: return "host orchestrator only";
    case Placement::kInCoreOrHost: return "InCore code or host orchestrator";
  }
  return "?";
}

const char* ArgEffectName(ArgEffect e) {
  switch (e) {
    case ArgEffect::kRead: return "Read";
    case ArgEffect::kWrite: return "Write";
    case ArgEffect::kReadWrite: return "ReadWrite";
  }
  return "?";
}

const char* AttrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::kBool: return "bool";
    case AttrKind::kInt: return "int";
    case AttrKind::kFloat: return "float";
    case AttrKind::kString: return "str";
    case AttrKind::kDataType: return "DataType";
    case AttrKind::kEnum: return "enum";
    case AttrKind::kExpr: return "Expr";
    case AttrKind::kIntList: return "list[int]";
    case AttrKind::kStringList: return "list[str]";
    case AttrKind::kExprList: return "list[Expr]";
  }
  return "?";
}

// ---------------------------------------------------------------- DeduceContext

std::optional<AttrValue> DeduceContext::Kwarg(const std::string& name) const {
  if (const AttrValue* v = kwargs_.Find(name)) return *v;
  if (const KwargSpec* spec = op_.FindKwarg(name)) return spec->default_value;
  return std::nullopt;
}

std::string DeduceContext::ArgName(size_t i) const {
  if (i < op_.args().size()) return op_.args()[i].name;
  if (!op_.args().empty() && op_.args().back().variadic) return op_.args().back().name;
  return "#" + std::to_string(i);
}

void DeduceContext::ArgError(size_t i, const std::string& expected) const {
  std::string arg_name = ArgName(i);
  std::string got = i < args_.size() ? TypeToString(args_[i]->type) : "nothing";
  ThrowTypeError(op_.name() + ": argument '" + arg_name + "' (position " + std::to_string(i) + ") must be " +
                     expected + ", got " + got,
                 span_);
}

void DeduceContext::Error(const std::string& message) const { ThrowTypeError(op_.name() + ": " + message, span_); }

Ref<TensorType> DeduceContext::TensorArg(size_t i) const {
  auto t = i < args_.size() ? As<TensorType>(args_[i]->type) : nullptr;
  if (!t) ArgError(i, "a Tensor");
  return t;
}

Ref<TileType> DeduceContext::TileArg(size_t i) const {
  auto t = i < args_.size() ? As<TileType>(args_[i]->type) : nullptr;
  if (!t) ArgError(i, "a Tile");
  return t;
}

DataType DeduceContext::ScalarArg(size_t i) const {
  auto d = i < args_.size() ? ScalarDType(args_[i]->type) : std::nullopt;
  if (!d) ArgError(i, "a scalar");
  return *d;
}

std::vector<ExprPtr> DeduceContext::IndexListArg(size_t i) const {
  auto tuple = i < args_.size() ? As<MakeTuple>(args_[i]) : nullptr;
  if (!tuple) ArgError(i, "a list of integers");
  for (const auto& e : tuple->elements) {
    auto d = ScalarDType(e->type);
    if (!d || !d->is_int()) ArgError(i, "a list of integers");
  }
  return tuple->elements;
}

// ---------------------------------------------------------------- OpDef

OpDef::OpDef(std::string name) : name_(std::move(name)) {}

OpDef& OpDef::set_category(OpCategory category) {
  category_ = category;
  return *this;
}
OpDef& OpDef::set_description(std::string description) {
  description_ = std::move(description);
  return *this;
}
OpDef& OpDef::add_argument(std::string name, std::string doc) {
  args_.push_back({std::move(name), std::move(doc), false, false});
  return *this;
}
OpDef& OpDef::add_optional_argument(std::string name, std::string doc) {
  args_.push_back({std::move(name), std::move(doc), false, true});
  return *this;
}
OpDef& OpDef::add_variadic_argument(std::string name, std::string doc) {
  args_.push_back({std::move(name), std::move(doc), true, false});
  return *this;
}
OpDef& OpDef::add_kwarg(std::string name, AttrKind kind, std::optional<AttrValue> default_value, std::string doc) {
  kwargs_.push_back({std::move(name), kind, "", std::move(default_value), false, std::move(doc)});
  return *this;
}
OpDef& OpDef::add_required_kwarg(std::string name, AttrKind kind, std::string doc) {
  kwargs_.push_back({std::move(name), kind, "", std::nullopt, true, std::move(doc)});
  return *this;
}
OpDef& OpDef::add_enum_kwarg(std::string name, std::string enum_type, std::optional<AttrValue> default_value,
                             std::string doc) {
  kwargs_.push_back({std::move(name), AttrKind::kEnum, std::move(enum_type), std::move(default_value), false,
                     std::move(doc)});
  return *this;
}
OpDef& OpDef::add_required_enum_kwarg(std::string name, std::string enum_type, std::string doc) {
  kwargs_.push_back({std::move(name), AttrKind::kEnum, std::move(enum_type), std::nullopt, true, std::move(doc)});
  return *this;
}
OpDef& OpDef::set_arg_effect(int index, ArgEffect effect) {
  arg_effects_[index] = effect;
  return *this;
}
OpDef& OpDef::set_arg_effect(int index, ArgEffectFn resolver) {
  arg_effects_[index] = resolver(Attrs{});
  arg_effect_fns_[index] = std::move(resolver);
  return *this;
}
OpDef& OpDef::set_input_memory(int index, std::vector<MemorySpace> allowed) {
  input_memory_[index] = std::move(allowed);
  return *this;
}
OpDef& OpDef::set_output_memory(MemorySpace space) {
  output_memory_ = {OutputMemoryRule::Kind::kFixed, space, "", 0};
  return *this;
}
OpDef& OpDef::set_output_memory_from_kwarg(std::string kwarg) {
  output_memory_ = {OutputMemoryRule::Kind::kFromKwarg, MemorySpace::Vec, std::move(kwarg), 0};
  return *this;
}
OpDef& OpDef::set_output_memory_inherit_input(int index) {
  output_memory_ = {OutputMemoryRule::Kind::kInheritInput, MemorySpace::Vec, "", index};
  return *this;
}
OpDef& OpDef::set_output_reuses_input(int index) {
  output_reuses_input_ = index;
  return *this;
}
OpDef& OpDef::set_not_inplace_safe() {
  not_inplace_safe_ = true;
  return *this;
}
OpDef& OpDef::set_working_bytes_per_element(int64_t bytes) {
  working_bytes_per_element_ = bytes;
  return *this;
}

OpDef& OpDef::set_pipe(PipeType pipe) {
  pipe_ = [pipe](const ir::Call&) -> std::optional<PipeType> { return pipe; };
  return *this;
}

OpDef& OpDef::set_pipe(PipeFn fn) {
  pipe_ = std::move(fn);
  return *this;
}

OpDef& OpDef::set_no_pipe() {
  pipe_ = [](const ir::Call&) -> std::optional<PipeType> { return std::nullopt; };
  return *this;
}

std::optional<PipeType> OpDef::pipe(const ir::Call& call) const {
  if (!pipe_) ThrowInternalError("op '" + name_ + "' declares no pipe; ask declares_pipe() first");
  return pipe_(call);
}

const char* PipeTypeName(PipeType p) {
  switch (p) {
    case PipeType::kMTE1: return "MTE1";
    case PipeType::kMTE2: return "MTE2";
    case PipeType::kMTE3: return "MTE3";
    case PipeType::kM: return "M";
    case PipeType::kV: return "V";
    case PipeType::kS: return "S";
    case PipeType::kFIX: return "FIX";
    case PipeType::kALL: return "ALL";
  }
  return "?";
}
OpDef& OpDef::set_placement(Placement placement) {
  placement_ = placement;
  return *this;
}

OpDef& OpDef::set_dsl_module(std::string module) {
  dsl_module_ = std::move(module);
  return *this;
}

Placement OpDef::placement() const {
  if (placement_) return *placement_;
  if (category_ == OpCategory::kTensorOp || category_ == OpCategory::kTileOp) return Placement::kInCoreOnly;
  return Placement::kAnywhere;
}

OpDef& OpDef::set_type_deduce(TypeDeduceFn fn) {
  deduce_ = std::move(fn);
  return *this;
}

std::string OpDef::name_space() const {
  auto dot = name_.find('.');
  return dot == std::string::npos ? "" : name_.substr(0, dot);
}

const KwargSpec* OpDef::FindKwarg(const std::string& name) const {
  for (const auto& k : kwargs_) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

ArgEffect OpDef::arg_effect(int index) const {
  auto it = arg_effects_.find(index);
  return it == arg_effects_.end() ? ArgEffect::kRead : it->second;
}

ArgEffect OpDef::arg_effect(int index, const Attrs& kwargs) const {
  auto fn = arg_effect_fns_.find(index);
  return fn == arg_effect_fns_.end() ? arg_effect(index) : fn->second(kwargs);
}

const std::vector<MemorySpace>* OpDef::input_memory(int index) const {
  auto it = input_memory_.find(index);
  return it == input_memory_.end() ? nullptr : &it->second;
}

std::string OpDef::Signature() const {
  std::vector<std::string> parts;
  for (const auto& a : args_) parts.push_back(a.variadic ? "*" + a.name : a.optional ? a.name + "=None" : a.name);
  for (const auto& k : kwargs_) parts.push_back(k.name + (k.required ? "" : "=..."));
  return name_ + "(" + Join(parts, ", ") + ")";
}

void OpDef::CheckArity(size_t count, const Span& span) const {
  size_t required = 0;
  bool variadic = false;
  for (const auto& a : args_) {
    if (a.variadic) variadic = true;
    else if (!a.optional) ++required;
  }
  size_t max = variadic ? SIZE_MAX : args_.size();
  if (count >= required && count <= max) return;
  std::string expected = variadic ? "at least " + std::to_string(required)
                         : required == max ? std::to_string(required)
                                           : std::to_string(required) + " to " + std::to_string(max);
  ThrowTypeError(name_ + " takes " + expected + " positional argument(s) but " + std::to_string(count) +
                     " were given; signature: " + Signature(),
                 span);
}

namespace {
bool KindMatches(const KwargSpec& spec, const AttrValue& v) {
  switch (spec.kind) {
    case AttrKind::kBool: return std::holds_alternative<bool>(v);
    case AttrKind::kInt: return std::holds_alternative<int64_t>(v);
    case AttrKind::kFloat: return std::holds_alternative<double>(v) || std::holds_alternative<int64_t>(v);
    case AttrKind::kString: return std::holds_alternative<std::string>(v);
    case AttrKind::kDataType: return std::holds_alternative<DataType>(v);
    case AttrKind::kEnum: {
      const auto* e = std::get_if<EnumAttr>(&v);
      return e && e->type == spec.enum_type;
    }
    case AttrKind::kExpr: return std::holds_alternative<ExprPtr>(v);
    case AttrKind::kIntList: return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::kStringList: return std::holds_alternative<std::vector<std::string>>(v);
    case AttrKind::kExprList: return std::holds_alternative<std::vector<ExprPtr>>(v);
  }
  return false;
}
}  // namespace

void OpDef::CheckKwargs(const Attrs& kwargs, const Span& span) const {
  for (const auto& [key, value] : kwargs) {
    const KwargSpec* spec = FindKwarg(key);
    if (!spec) {
      std::vector<std::string> names;
      for (const auto& k : kwargs_) names.push_back(k.name);
      ThrowTypeError(name_ + " got an unexpected keyword argument '" + key + "'; " +
                         (names.empty() ? "it takes no keyword arguments" : "valid keywords: " + Join(names, ", ")),
                     span);
    }
    if (!KindMatches(*spec, value)) {
      std::string expected = spec->kind == AttrKind::kEnum ? "pl." + spec->enum_type : AttrKindName(spec->kind);
      ThrowTypeError(name_ + ": keyword '" + key + "' must be " + expected + ", got " + AttrValueKindName(value),
                     span);
    }
  }
  for (const auto& spec : kwargs_) {
    if (spec.required && !kwargs.Has(spec.name)) {
      ThrowTypeError(name_ + " is missing the required keyword argument '" + spec.name + "'", span);
    }
  }
}

TypePtr OpDef::DeduceType(const std::vector<ExprPtr>& args, const Attrs& kwargs, const Span& span) const {
  CheckArity(args.size(), span);
  CheckKwargs(kwargs, span);
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i]) ThrowInternalError(name_ + ": argument " + std::to_string(i) + " is null", span);
  }
  if (!deduce_) return UnknownType::Make();
  return deduce_(DeduceContext(*this, args, kwargs, span));
}

// ---------------------------------------------------------------- OpRegistry

OpRegistry& OpRegistry::Global() {
  static OpRegistry registry;
  return registry;
}

OpDef& OpRegistry::Register(const std::string& name) {
  auto [it, inserted] = ops_.emplace(name, std::make_unique<OpDef>(name));
  if (!inserted) ThrowInternalError("op '" + name + "' is registered twice");
  return *it->second;
}

const OpDef* OpRegistry::Find(const std::string& name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : it->second.get();
}

namespace {
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

const OpDef& OpRegistry::Get(const std::string& name, const Span& span) const {
  if (const OpDef* op = Find(name)) return *op;
  std::vector<std::pair<size_t, std::string>> close;
  for (const auto& [other, def] : ops_) {
    size_t d = EditDistance(name, other);
    if (d <= 3) close.emplace_back(d, other);
  }
  std::sort(close.begin(), close.end());
  std::string hint;
  if (!close.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < close.size() && i < 3; ++i) names.push_back(close[i].second);
    hint = "; did you mean " + Join(names, ", ") + "?";
  }
  ThrowValueError("unknown op '" + name + "'" + hint, span);
}

std::vector<const OpDef*> OpRegistry::List() const {
  std::vector<const OpDef*> out;
  for (const auto& [name, def] : ops_) out.push_back(def.get());
  return out;
}

CallPtr OpRegistry::Create(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs, Span span) const {
  const OpDef& def = Get(name, span);
  TypePtr type = def.DeduceType(args, kwargs, span);
  return Call::Make(Op::Get(name), std::move(args), std::move(kwargs), std::move(type), std::move(span));
}

TypePtr OpRegistry::DeduceType(const Call& call) const {
  const OpDef& def = Get(call.op->name, call.span);
  return def.DeduceType(call.args, call.kwargs, call.span);
}

}  // namespace pypto::ops
