// IR expressions. Every expression carries its type.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "pypto/ir/attrs.h"
#include "pypto/ir/node.h"
#include "pypto/ir/type.h"

namespace pypto::ir {

class Expr : public Node {
 public:
  static bool classof(NodeKind k) { return IsExprKind(k); }

  TypePtr type;

 protected:
  using Node::Node;
};
using ExprPtr = Ref<Expr>;

// A variable. Identity is the object itself: two Vars with one name are two
// variables. `unique_id` orders variables stably for hashing and printing.
class Var : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kVar;
  static bool classof(NodeKind k) { return k == NodeKind::kVar || k == NodeKind::kIterArg || k == NodeKind::kMemRef; }
  Var() : Var(kKind) {}
  Var(const Var& other);
  static Ref<Var> Make(std::string name_hint, TypePtr type, Span span = Span());

  std::string name_hint;
  uint64_t unique_id;

  template <class F>
  void ForEachField(F&& f) {
    f("name_hint", name_hint, FieldRole::kIgnore);
    f("type", type, FieldRole::kUsual);
  }

 protected:
  explicit Var(NodeKind kind);
};
using VarPtr = Ref<Var>;

// A loop-carried value: bound by a loop, starting at `init_value`.
class IterArg : public Var {
 public:
  static constexpr NodeKind kKind = NodeKind::kIterArg;
  static bool classof(NodeKind k) { return k == kKind; }
  IterArg() : Var(kKind) {}
  static Ref<IterArg> Make(std::string name_hint, TypePtr type, ExprPtr init_value, Span span = Span());

  ExprPtr init_value;

  template <class F>
  void ForEachField(F&& f) {
    Var::ForEachField(f);
    f("init_value", init_value, FieldRole::kUsual);
  }
};
using IterArgPtr = Ref<IterArg>;

// An on-chip buffer: `size` bytes at `byte_offset` from the allocation `base`
// in `memory_space`. Tiles that share a MemRef share storage.
class MemRef : public Var {
 public:
  static constexpr NodeKind kKind = NodeKind::kMemRef;
  static bool classof(NodeKind k) { return k == kKind; }
  MemRef() : Var(kKind) {}
  static Ref<MemRef> Make(std::string name_hint, MemorySpace memory_space, VarPtr base, ExprPtr byte_offset,
                          int64_t size, Span span = Span());

  MemorySpace memory_space = MemorySpace::Vec;
  VarPtr base;          // the tile.alloc result; null before allocation
  ExprPtr byte_offset;  // from base; the absolute address after AllocateMemoryAddr
  int64_t size = 0;     // bytes

  template <class F>
  void ForEachField(F&& f) {
    Var::ForEachField(f);
    f("memory_space", memory_space, FieldRole::kUsual);
    f("base", base, FieldRole::kUsual);
    f("byte_offset", byte_offset, FieldRole::kUsual);
    f("size", size, FieldRole::kUsual);
  }
};
using MemRefPtr = Ref<MemRef>;

// The buffer of a tile variable; null for other variables and unplanned tiles.
MemRefPtr MemRefOf(const Ref<Var>& var);

class ConstInt : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kConstInt;
  static bool classof(NodeKind k) { return k == kKind; }
  ConstInt() : Expr(kKind) {}
  // A bare integer literal is INDEX.
  static Ref<ConstInt> Make(int64_t value, DataType dtype = DataType::INDEX, Span span = Span());

  int64_t value = 0;
  DataType dtype() const;

  template <class F>
  void ForEachField(F&& f) {
    f("value", value, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

class ConstFloat : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kConstFloat;
  static bool classof(NodeKind k) { return k == kKind; }
  ConstFloat() : Expr(kKind) {}
  static Ref<ConstFloat> Make(double value, DataType dtype = DataType::FP32, Span span = Span());

  double value = 0;
  DataType dtype() const;

  template <class F>
  void ForEachField(F&& f) {
    f("value", value, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

class ConstBool : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kConstBool;
  static bool classof(NodeKind k) { return k == kKind; }
  ConstBool() : Expr(kKind) {}
  static Ref<ConstBool> Make(bool value, Span span = Span());

  bool value = false;

  template <class F>
  void ForEachField(F&& f) {
    f("value", value, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

// X(Enum, python operator or function, is_comparison)
#define PYPTO_BINARY_OPS(X)                                                                              \
  X(Add, "+", false) X(Sub, "-", false) X(Mul, "*", false) X(FloorDiv, "//", false) X(FloorMod, "%", false) \
  X(FloatDiv, "/", false) X(Min, "min", false) X(Max, "max", false) X(Pow, "**", false)                 \
  X(Eq, "==", true) X(Ne, "!=", true) X(Lt, "<", true) X(Le, "<=", true) X(Gt, ">", true) X(Ge, ">=", true) \
  X(And, "and", false) X(Or, "or", false) X(Xor, "xor", false) X(BitAnd, "&", false) X(BitOr, "|", false) \
  X(BitXor, "^", false) X(BitShiftLeft, "<<", false) X(BitShiftRight, ">>", false)

enum class BinaryOp : uint8_t {
#define PYPTO_X(name, sym, cmp) name,
  PYPTO_BINARY_OPS(PYPTO_X)
#undef PYPTO_X
};
const char* BinaryOpName(BinaryOp op);    // "Add"
const char* BinaryOpSymbol(BinaryOp op);  // "+"
bool IsComparison(BinaryOp op);

#define PYPTO_UNARY_OPS(X) X(Abs, "abs") X(Neg, "-") X(Not, "not") X(BitNot, "~") X(Cast, "cast")

enum class UnaryOp : uint8_t {
#define PYPTO_X(name, sym) name,
  PYPTO_UNARY_OPS(PYPTO_X)
#undef PYPTO_X
};
const char* UnaryOpName(UnaryOp op);
const char* UnaryOpSymbol(UnaryOp op);

// Scalar arithmetic and comparison; the result dtype is in `type`.
// Both operands are always evaluated (And/Or do not short-circuit).
class BinaryExpr : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kBinaryExpr;
  static bool classof(NodeKind k) { return k == kKind; }
  BinaryExpr() : Expr(kKind) {}
  // Type-checks the operands (scalars only) and deduces the result dtype:
  // comparisons and logic give BOOL, arithmetic the promoted dtype.
  static Ref<BinaryExpr> Make(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span = Span());

  BinaryOp op = BinaryOp::Add;
  ExprPtr lhs;
  ExprPtr rhs;
  DataType dtype() const;

  template <class F>
  void ForEachField(F&& f) {
    f("op", op, FieldRole::kUsual);
    f("lhs", lhs, FieldRole::kUsual);
    f("rhs", rhs, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

class UnaryExpr : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kUnaryExpr;
  static bool classof(NodeKind k) { return k == kKind; }
  UnaryExpr() : Expr(kKind) {}
  static Ref<UnaryExpr> Make(UnaryOp op, ExprPtr operand, Span span = Span());
  static Ref<UnaryExpr> MakeCast(ExprPtr operand, DataType dtype, Span span = Span());

  UnaryOp op = UnaryOp::Neg;
  ExprPtr operand;
  DataType dtype() const;

  template <class F>
  void ForEachField(F&& f) {
    f("op", op, FieldRole::kUsual);
    f("operand", operand, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

// A registered operator ("tile.add"). One Op object per name (see OpRegistry).
class Op : public Node {
 public:
  static constexpr NodeKind kKind = NodeKind::kOp;
  static bool classof(NodeKind k) { return k == NodeKind::kOp || k == NodeKind::kGlobalVar; }
  Op() : Node(kKind) {}
  // The canonical Op object of `name` (interned; registered or not).
  static Ref<Op> Get(const std::string& name);

  std::string name;

  template <class F>
  void ForEachField(F&& f) { f("name", name, FieldRole::kUsual); }

 protected:
  explicit Op(NodeKind kind) : Node(kind) {}
};
using OpPtr = Ref<Op>;

// A reference to a function of the enclosing Program, by name.
class GlobalVar : public Op {
 public:
  static constexpr NodeKind kKind = NodeKind::kGlobalVar;
  static bool classof(NodeKind k) { return k == kKind; }
  GlobalVar() : Op(kKind) {}
  static Ref<GlobalVar> Make(std::string name, Span span = Span());

  template <class F>
  void ForEachField(F&& f) { Op::ForEachField(f); }
};
using GlobalVarPtr = Ref<GlobalVar>;

// A call of an op or of a function of this program. `kwargs` are the user's
// compile-time keywords (validated by the op schema); `attrs` are compiler
// metadata attached by passes.
class Call : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kCall;
  static bool classof(NodeKind k) { return k == kKind; }
  Call() : Expr(kKind) {}
  // No checking: use OpRegistry::Create for op calls, which type-checks.
  static Ref<Call> Make(OpPtr op, std::vector<ExprPtr> args, Attrs kwargs, TypePtr type, Span span = Span(),
                        Attrs attrs = {});

  OpPtr op;
  std::vector<ExprPtr> args;
  Attrs kwargs;
  Attrs attrs;

  bool is_function_call() const { return op && op->kind() == NodeKind::kGlobalVar; }
  const std::string& callee_name() const { return op->name; }

  template <class F>
  void ForEachField(F&& f) {
    f("op", op, FieldRole::kUsual);
    f("args", args, FieldRole::kUsual);
    f("kwargs", kwargs, FieldRole::kUsual);
    f("attrs", attrs, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};
using CallPtr = Ref<Call>;

class MakeTuple : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kMakeTuple;
  static bool classof(NodeKind k) { return k == kKind; }
  MakeTuple() : Expr(kKind) {}
  static Ref<MakeTuple> Make(std::vector<ExprPtr> elements, Span span = Span());

  std::vector<ExprPtr> elements;

  template <class F>
  void ForEachField(F&& f) {
    f("elements", elements, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

class TupleGetItem : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kTupleGetItem;
  static bool classof(NodeKind k) { return k == kKind; }
  TupleGetItem() : Expr(kKind) {}
  static Ref<TupleGetItem> Make(ExprPtr tuple, int64_t index, Span span = Span());

  ExprPtr tuple;
  int64_t index = 0;

  template <class F>
  void ForEachField(F&& f) {
    f("tuple", tuple, FieldRole::kUsual);
    f("index", index, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};

// One runtime task: the kernel call `call` (a Call of a function of this
// program), submitted so that it waits for the tasks in `deps` and names
// itself by a task id. Its value is the call's results followed by that id:
// Tuple[results..., Scalar[TASK_ID]] (`r, tid = pl.submit(self.k, a, deps=[t])`).
//
// A node wrapping a Call, not a Call of a "submit" op: the dispatch itself
// stays an ordinary function Call, so every pass that rewrites kernel calls
// (adding Out arguments, deriving argument directions, planning views) treats
// submitted and fire-and-forget calls alike, and a submit keeps only what a
// call lacks: its dependencies and its task id. `call.attrs` keep the launch
// (core_num, sync_start of pl.spmd_submit) and per-argument metadata
// (arg_directions, no_dep_args); `attrs` are options of the task itself
// (allow_early_resolve, compiler_deps).
class Submit : public Expr {
 public:
  static constexpr NodeKind kKind = NodeKind::kSubmit;
  static bool classof(NodeKind k) { return k == kKind; }
  Submit() : Expr(kKind) {}
  // Type-checks that `call` calls a program function and deduces the tuple type.
  static Ref<Submit> Make(ExprPtr call, std::vector<ExprPtr> deps, Attrs attrs = {}, Span span = Span());

  ExprPtr call;               // a Call of a GlobalVar
  std::vector<ExprPtr> deps;  // Scalar[TASK_ID] values or Arrays of TASK_ID
  Attrs attrs;

  Ref<Call> kernel_call() const;
  // The position of the task id in the value (the number of call results).
  int64_t task_id_index() const;

  template <class F>
  void ForEachField(F&& f) {
    f("call", call, FieldRole::kUsual);
    f("deps", deps, FieldRole::kUsual);
    f("attrs", attrs, FieldRole::kUsual);
    f("type", type, FieldRole::kUsual);
  }
};
using SubmitPtr = Ref<Submit>;

// The values a call produces, one type each: none for an untyped or empty
// call, the fields of a tuple, or the one type.
std::vector<TypePtr> CallResultTypes(const TypePtr& call_type);
// The type of a submit of a call of type `call_type`: its results and a task id.
TypePtr SubmitType(const TypePtr& call_type);

// Literal helpers.
Ref<ConstInt> Int(int64_t value, DataType dtype = DataType::INDEX);
Ref<ConstFloat> Float(double value, DataType dtype = DataType::FP32);
Ref<ConstBool> Bool(bool value);
std::vector<ExprPtr> Ints(const std::vector<int64_t>& values);
// The value of a ConstInt, if `e` is one.
std::optional<int64_t> AsConstInt(const ExprPtr& e);

}  // namespace pypto::ir
