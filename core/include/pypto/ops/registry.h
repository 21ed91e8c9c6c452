// The operator registry: one declarative definition per op (schema, type
// deduction, read/write effects, memory-space rules). Calls of registered ops
// are built through OpRegistry::Create, which checks them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ops {

using ir::Attrs;
using ir::AttrValue;
using ir::CallPtr;
using ir::DataType;
using ir::ExprPtr;
using ir::MemorySpace;
using ir::TypePtr;

enum class OpCategory { kTensorOp, kTileOp, kSystemOp, kSyncOp, kCrossCoreOp, kArrayOp, kCommOp };
const char* OpCategoryName(OpCategory c);

// Where calls of an op may appear. Tensor compute ops belong inside InCore
// code (a `pl.at` scope or an InCore function) until they are lowered; tile
// ops never appear on the control plane; tensor creation never inside InCore.
enum class Placement {
  kAnywhere,
  kInCoreOnly,         // InCore/AIC/AIV/Group functions and InCore scopes
  kOrchestrationOnly,  // never inside InCore code
  kHostOnly,           // a @pl.jit.host orchestrator (a function of level HOST, role Orchestrator) only
  kInCoreOrHost,       // InCore code (a kernel's composite form) or a host orchestrator (the host builtin)
};
// A @pl.jit.host orchestrator: it runs on the host of every rank and dispatches chip programs.
bool IsHostOrchestrator(const ir::Function& function);
const char* PlacementName(Placement p);

// The hardware pipes of a core, by the codes the sync ops' set_pipe /
// wait_pipe keywords take (upstream's PipeType order). An instruction runs on
// one pipe; pipes run asynchronously, so the pipe-sync pass orders the
// instructions of different pipes that touch the same memory.
enum class PipeType { kMTE1 = 0, kMTE2 = 1, kMTE3 = 2, kM = 3, kV = 4, kS = 5, kFIX = 6, kALL = 7 };
const char* PipeTypeName(PipeType p);  // "MTE1", ..., "ALL"
// The pipe a call runs on, from its operands' memory spaces; nullopt: the call
// emits no instruction that touches memory (a view, an allocation, a query).
using PipeFn = std::function<std::optional<PipeType>(const ir::Call& call)>;

// How an op uses one of its positional arguments.
enum class ArgEffect { kRead, kWrite, kReadWrite };
const char* ArgEffectName(ArgEffect e);
// For ops whose effect depends on a keyword (an atomic store reads what it adds to).
using ArgEffectFn = std::function<ArgEffect(const Attrs& kwargs)>;

// The kind a keyword argument must have. kEnum also names the enum type.
enum class AttrKind { kBool, kInt, kFloat, kString, kDataType, kEnum, kExpr, kIntList, kStringList, kExprList };
const char* AttrKindName(AttrKind k);

struct ArgSpec {
  std::string name;
  std::string doc;
  bool variadic = false;  // only the last argument; takes zero or more values
  bool optional = false;  // trailing optional arguments may be omitted
};

struct KwargSpec {
  std::string name;
  AttrKind kind = AttrKind::kInt;
  std::string enum_type;                   // for kEnum: "MemorySpace", ...
  std::optional<AttrValue> default_value;  // unset and !required: absent means "not given"
  bool required = false;
  std::string doc;
};

// Where an op's result lives, for tile ops.
struct OutputMemoryRule {
  enum class Kind { kNone, kFixed, kFromKwarg, kInheritInput } kind = Kind::kNone;
  MemorySpace space = MemorySpace::Vec;  // kFixed
  std::string kwarg;                     // kFromKwarg
  int input = 0;                         // kInheritInput
};

class OpDef;

// What a type-deduction function sees: the checked call and helpers that
// raise errors naming the op and the argument.
class DeduceContext {
 public:
  DeduceContext(const OpDef& op, const std::vector<ExprPtr>& args, const Attrs& kwargs, const Span& span)
      : op_(op), args_(args), kwargs_(kwargs), span_(span) {}

  const OpDef& op() const { return op_; }
  const std::vector<ExprPtr>& args() const { return args_; }
  const ExprPtr& arg(size_t i) const { return args_.at(i); }
  size_t num_args() const { return args_.size(); }
  const Attrs& kwargs() const { return kwargs_; }
  const Span& span() const { return span_; }

  // The kwarg's value, or its schema default, or nullopt.
  std::optional<AttrValue> Kwarg(const std::string& name) const;
  template <class T>
  std::optional<T> KwargAs(const std::string& name) const {
    auto v = Kwarg(name);
    if (!v) return std::nullopt;
    if (const T* t = std::get_if<T>(&*v)) return *t;
    return std::nullopt;
  }
  template <class E>
  std::optional<E> KwargEnum(const std::string& name) const {
    auto v = KwargAs<ir::EnumAttr>(name);
    if (!v) return std::nullopt;
    return v->As<E>();
  }

  // Typed views of argument i; each raises a TypeError naming the op, the
  // argument and the expected type when the argument does not match.
  ir::Ref<ir::TensorType> TensorArg(size_t i) const;
  ir::Ref<ir::TileType> TileArg(size_t i) const;
  DataType ScalarArg(size_t i) const;  // the scalar's dtype
  // A list argument given as a MakeTuple of scalar exprs (offsets, shapes).
  std::vector<ExprPtr> IndexListArg(size_t i) const;

  // The schema name of argument i ("lhs"); variadic tails share the last name.
  std::string ArgName(size_t i) const;
  [[noreturn]] void ArgError(size_t i, const std::string& expected) const;
  [[noreturn]] void Error(const std::string& message) const;

 private:
  const OpDef& op_;
  const std::vector<ExprPtr>& args_;
  const Attrs& kwargs_;
  const Span& span_;
};

using TypeDeduceFn = std::function<TypePtr(const DeduceContext&)>;

class OpDef {
 public:
  explicit OpDef(std::string name);

  // ---- declaration (chained)
  OpDef& set_category(OpCategory category);
  OpDef& set_description(std::string description);
  OpDef& add_argument(std::string name, std::string doc = "");
  OpDef& add_optional_argument(std::string name, std::string doc = "");
  OpDef& add_variadic_argument(std::string name, std::string doc = "");
  OpDef& add_kwarg(std::string name, AttrKind kind, std::optional<AttrValue> default_value = std::nullopt,
                   std::string doc = "");
  OpDef& add_required_kwarg(std::string name, AttrKind kind, std::string doc = "");
  OpDef& add_enum_kwarg(std::string name, std::string enum_type, std::optional<AttrValue> default_value = std::nullopt,
                        std::string doc = "");
  OpDef& add_required_enum_kwarg(std::string name, std::string enum_type, std::string doc = "");
  OpDef& set_arg_effect(int index, ArgEffect effect);
  OpDef& set_arg_effect(int index, ArgEffectFn resolver);
  // Allowed memory spaces of tile argument `index` (checked once spaces are inferred).
  OpDef& set_input_memory(int index, std::vector<MemorySpace> allowed);
  OpDef& set_output_memory(MemorySpace space);
  OpDef& set_output_memory_from_kwarg(std::string kwarg);
  OpDef& set_output_memory_inherit_input(int index);
  // The result is argument `index`'s storage (tile.store -> the tensor).
  OpDef& set_output_reuses_input(int index);
  // The result must not share a buffer with any input.
  OpDef& set_not_inplace_safe();
  // The op has no instruction of its own and a pass computes it from ops
  // that do; the temporaries of that sequence add `bytes` per element of
  // the result to what is live beside the operands and the result (the
  // tiling of element-wise chains counts them).
  OpDef& set_working_bytes_per_element(int64_t bytes);
  // The pipe its instruction runs on: fixed, or from the call's memory spaces.
  OpDef& set_pipe(PipeType pipe);
  OpDef& set_pipe(PipeFn fn);
  // The op emits no instruction that touches memory (a view, an allocation, a query).
  OpDef& set_no_pipe();
  OpDef& set_type_deduce(TypeDeduceFn fn);
  // Default: kInCoreOnly for tensor and tile ops, kAnywhere for the rest.
  OpDef& set_placement(Placement placement);
  // The Python module the DSL reaches the op through, as printed IR spells it: "pl" (default) or
  // "pld" (pypto.language.distributed).
  OpDef& set_dsl_module(std::string module);

  // ---- queries
  const std::string& name() const { return name_; }
  // "tensor" for "tensor.add"; "" for names without a dot.
  std::string name_space() const;
  OpCategory category() const { return category_; }
  const std::string& description() const { return description_; }
  const std::vector<ArgSpec>& args() const { return args_; }
  const std::vector<KwargSpec>& kwargs() const { return kwargs_; }
  const KwargSpec* FindKwarg(const std::string& name) const;
  // The effect with default kwargs; arg_effect(index, kwargs) resolves keyword-dependent effects.
  ArgEffect arg_effect(int index) const;
  ArgEffect arg_effect(int index, const Attrs& kwargs) const;
  const std::map<int, ArgEffect>& arg_effects() const { return arg_effects_; }
  const std::vector<MemorySpace>* input_memory(int index) const;
  const OutputMemoryRule& output_memory() const { return output_memory_; }
  std::optional<int> output_reuses_input() const { return output_reuses_input_; }
  bool not_inplace_safe() const { return not_inplace_safe_; }
  int64_t working_bytes_per_element() const { return working_bytes_per_element_; }
  // Whether the op says which pipe it runs on; an op that does not is ordered
  // against everything (pipe_barrier(PIPE_ALL) on both sides).
  bool declares_pipe() const { return static_cast<bool>(pipe_); }
  // The pipe of `call` (an op that declares one); nullopt: no instruction.
  std::optional<PipeType> pipe(const ir::Call& call) const;
  bool has_type_deduce() const { return static_cast<bool>(deduce_); }
  Placement placement() const;
  const std::string& dsl_module() const { return dsl_module_; }

  // Checks arity and kwargs against the schema and deduces the result type.
  TypePtr DeduceType(const std::vector<ExprPtr>& args, const Attrs& kwargs, const Span& span) const;
  // A one-line signature for docs and errors: "tensor.add(lhs, rhs)".
  std::string Signature() const;

 private:
  void CheckArity(size_t count, const Span& span) const;
  void CheckKwargs(const Attrs& kwargs, const Span& span) const;

  std::string name_;
  OpCategory category_ = OpCategory::kTensorOp;
  std::string dsl_module_ = "pl";
  std::string description_;
  std::vector<ArgSpec> args_;
  std::vector<KwargSpec> kwargs_;
  std::map<int, ArgEffect> arg_effects_;
  std::map<int, ArgEffectFn> arg_effect_fns_;
  std::map<int, std::vector<MemorySpace>> input_memory_;
  OutputMemoryRule output_memory_;
  std::optional<int> output_reuses_input_;
  bool not_inplace_safe_ = false;
  int64_t working_bytes_per_element_ = 0;
  PipeFn pipe_;
  std::optional<Placement> placement_;
  TypeDeduceFn deduce_;
};

class OpRegistry {
 public:
  static OpRegistry& Global();

  // Declares a new op; a second registration of one name is an error.
  OpDef& Register(const std::string& name);
  const OpDef* Find(const std::string& name) const;
  // Raises a ValueError naming close matches when `name` is unknown.
  const OpDef& Get(const std::string& name, const Span& span = Span()) const;
  // All ops, sorted by name.
  std::vector<const OpDef*> List() const;

  // Builds a type-checked call of a registered op.
  CallPtr Create(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}, Span span = Span()) const;
  // Re-deduces the type of an existing op call (the verifier uses this).
  TypePtr DeduceType(const ir::Call& call) const;

 private:
  OpRegistry() = default;
  std::map<std::string, std::unique_ptr<OpDef>> ops_;
};

}  // namespace pypto::ops

#define PYPTO_OPS_CONCAT_INNER(a, b) a##b
#define PYPTO_OPS_CONCAT(a, b) PYPTO_OPS_CONCAT_INNER(a, b)
// At namespace scope in a .cpp of the core or a plugin:
//   PYPTO_REGISTER_OP("tile.add").set_category(...)...;
#define PYPTO_REGISTER_OP(name)                                                                  \
  [[maybe_unused]] static ::pypto::ops::OpDef& PYPTO_OPS_CONCAT(pypto_registered_op_, __COUNTER__) = \
      ::pypto::ops::OpRegistry::Global().Register(name)
