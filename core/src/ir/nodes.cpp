// Factory functions and small queries of the IR node classes.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <unordered_map>

#include "pypto/ir/ir.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::ir {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
#define PYPTO_X(T) \
  case NodeKind::k##T: return #T;
    PYPTO_IR_NODES(PYPTO_X)
#undef PYPTO_X
  }
  return "?";
}

// ---------------------------------------------------------------- types

Ref<ScalarType> ScalarType::Make(DataType dtype) {
  auto t = std::make_shared<ScalarType>();
  t->dtype = dtype;
  return t;
}

Ref<TensorType> TensorType::Make(std::vector<ExprPtr> shape, DataType dtype, TensorLayout layout,
                                 std::optional<TensorView> view) {
  auto t = std::make_shared<TensorType>();
  t->shape = std::move(shape);
  t->dtype = dtype;
  t->layout = layout;
  t->view = std::move(view);
  return t;
}

Ref<TensorType> TensorType::Make(const std::vector<int64_t>& shape, DataType dtype) {
  return Make(Ints(shape), dtype);
}

Ref<DistributedTensorType> DistributedTensorType::Make(std::vector<ExprPtr> shape, DataType dtype,
                                                       TensorLayout layout, std::optional<TensorView> view) {
  auto t = std::make_shared<DistributedTensorType>();
  t->shape = std::move(shape);
  t->dtype = dtype;
  t->layout = layout;
  t->view = std::move(view);
  return t;
}

Ref<TileType> TileType::Make(std::vector<ExprPtr> shape, DataType dtype, std::optional<MemorySpace> memory_space) {
  auto t = std::make_shared<TileType>();
  t->shape = std::move(shape);
  t->dtype = dtype;
  t->memory_space = memory_space;
  return t;
}

Ref<TileType> TileType::Make(const std::vector<int64_t>& shape, DataType dtype,
                             std::optional<MemorySpace> memory_space) {
  return Make(Ints(shape), dtype, memory_space);
}

Ref<TupleType> TupleType::Make(std::vector<TypePtr> fields) {
  auto t = std::make_shared<TupleType>();
  t->fields = std::move(fields);
  return t;
}

Ref<ArrayType> ArrayType::Make(DataType dtype, ExprPtr size) {
  auto t = std::make_shared<ArrayType>();
  t->dtype = dtype;
  t->size = std::move(size);
  return t;
}

Ref<PtrType> PtrType::Make(std::optional<MemorySpace> memory_space) {
  auto t = std::make_shared<PtrType>();
  t->memory_space = memory_space;
  return t;
}

Ref<UnknownType> UnknownType::Make() {
  static const Ref<UnknownType> instance = std::make_shared<UnknownType>();
  return instance;
}

std::optional<DataType> ScalarDType(const TypePtr& type) {
  if (auto s = As<ScalarType>(type)) return s->dtype;
  return std::nullopt;
}

bool IsScalarType(const TypePtr& type, DataType dtype) {
  auto d = ScalarDType(type);
  return d && *d == dtype;
}

const std::vector<ExprPtr>* ShapeOf(const TypePtr& type) {
  if (auto t = As<TensorType>(type)) return &t->shape;
  if (auto t = As<TileType>(type)) return &t->shape;
  return nullptr;
}

std::optional<std::vector<int64_t>> StaticShape(const std::vector<ExprPtr>& shape) {
  std::vector<int64_t> dims;
  for (const auto& d : shape) {
    auto v = AsConstInt(d);
    if (!v) return std::nullopt;
    dims.push_back(*v);
  }
  return dims;
}

namespace {
std::string DimToString(const ExprPtr& d) {
  if (auto v = AsConstInt(d)) return std::to_string(*v);
  if (auto var = As<Var>(d)) return var->name_hint;
  return "?";
}
std::string ShapeToString(const std::vector<ExprPtr>& shape) {
  return "[" + JoinMapped(shape, ", ", DimToString) + "]";
}
}  // namespace

std::string TypeToString(const TypePtr& type) {
  if (!type) return "<no type>";
  if (auto s = As<ScalarType>(type)) return std::string("Scalar[") + s->dtype.name() + "]";
  if (auto t = As<TensorType>(type)) return "Tensor[" + ShapeToString(t->shape) + ", " + t->dtype.name() + "]";
  if (auto t = As<TileType>(type)) {
    std::string s = "Tile[" + ShapeToString(t->shape) + ", " + t->dtype.name();
    if (t->memory_space) s += std::string(", ") + ToString(*t->memory_space);
    return s + "]";
  }
  if (auto t = As<TupleType>(type)) return "Tuple[" + JoinMapped(t->fields, ", ", TypeToString) + "]";
  if (auto t = As<ArrayType>(type)) return std::string("Array[") + DimToString(t->size) + ", " + t->dtype.name() + "]";
  if (auto t = As<PtrType>(type)) return t->memory_space ? std::string("Ptr[") + ToString(*t->memory_space) + "]" : "Ptr";
  return "Unknown";
}

// ---------------------------------------------------------------- expressions

namespace {
std::atomic<uint64_t> g_next_var_id{1};
}

Var::Var(NodeKind kind) : Expr(kind), unique_id(g_next_var_id++) {}
Var::Var(const Var& other) : Expr(other), name_hint(other.name_hint), unique_id(g_next_var_id++) {}

Ref<Var> Var::Make(std::string name_hint, TypePtr type, Span span) {
  auto v = std::make_shared<Var>();
  v->name_hint = std::move(name_hint);
  v->type = std::move(type);
  v->span = std::move(span);
  return v;
}

Ref<IterArg> IterArg::Make(std::string name_hint, TypePtr type, ExprPtr init_value, Span span) {
  auto v = std::make_shared<IterArg>();
  v->name_hint = std::move(name_hint);
  v->type = std::move(type);
  v->init_value = std::move(init_value);
  v->span = std::move(span);
  return v;
}

Ref<MemRef> MemRef::Make(std::string name_hint, MemorySpace memory_space, VarPtr base, ExprPtr byte_offset,
                         int64_t size, Span span) {
  auto v = std::make_shared<MemRef>();
  v->name_hint = std::move(name_hint);
  v->type = PtrType::Make(memory_space);
  v->memory_space = memory_space;
  v->base = std::move(base);
  v->byte_offset = byte_offset ? std::move(byte_offset) : Int(0);
  v->size = size;
  v->span = std::move(span);
  return v;
}

MemRefPtr MemRefOf(const VarPtr& var) {
  auto tile = var ? As<TileType>(var->type) : nullptr;
  return tile ? tile->memref : nullptr;
}

Ref<ConstInt> ConstInt::Make(int64_t value, DataType dtype, Span span) {
  auto c = std::make_shared<ConstInt>();
  c->value = value;
  c->type = ScalarType::Make(dtype);
  c->span = std::move(span);
  return c;
}
DataType ConstInt::dtype() const { return *ScalarDType(type); }

Ref<ConstFloat> ConstFloat::Make(double value, DataType dtype, Span span) {
  auto c = std::make_shared<ConstFloat>();
  c->value = value;
  c->type = ScalarType::Make(dtype);
  c->span = std::move(span);
  return c;
}
DataType ConstFloat::dtype() const { return *ScalarDType(type); }

Ref<ConstBool> ConstBool::Make(bool value, Span span) {
  auto c = std::make_shared<ConstBool>();
  c->value = value;
  c->type = ScalarType::Make(DataType::BOOL);
  c->span = std::move(span);
  return c;
}

namespace {
struct BinaryOpInfo {
  const char* name;
  const char* symbol;
  bool comparison;
};
constexpr BinaryOpInfo kBinaryOps[] = {
#define PYPTO_X(name, sym, cmp) {#name, sym, cmp},
    PYPTO_BINARY_OPS(PYPTO_X)
#undef PYPTO_X
};
struct UnaryOpInfo {
  const char* name;
  const char* symbol;
};
constexpr UnaryOpInfo kUnaryOps[] = {
#define PYPTO_X(name, sym) {#name, sym},
    PYPTO_UNARY_OPS(PYPTO_X)
#undef PYPTO_X
};

DataType ScalarOperandDType(const ExprPtr& e, const char* op, const char* side, const Span& span) {
  if (!e) ThrowInternalError(std::string("null ") + side + " operand of " + op, span);
  auto dt = ScalarDType(e->type);
  if (!dt) {
    ThrowTypeError(std::string("scalar operator '") + op + "' needs scalar operands, but its " + side + " operand is " +
                       TypeToString(e->type) + "; use the pl.* tile or tensor op for whole arrays",
                   span);
  }
  return *dt;
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor; }
bool IsBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor || op == BinaryOp::BitShiftLeft ||
         op == BinaryOp::BitShiftRight;
}
}  // namespace

const char* BinaryOpName(BinaryOp op) { return kBinaryOps[static_cast<int>(op)].name; }
const char* BinaryOpSymbol(BinaryOp op) { return kBinaryOps[static_cast<int>(op)].symbol; }
bool IsComparison(BinaryOp op) { return kBinaryOps[static_cast<int>(op)].comparison; }
const char* UnaryOpName(UnaryOp op) { return kUnaryOps[static_cast<int>(op)].name; }
const char* UnaryOpSymbol(UnaryOp op) { return kUnaryOps[static_cast<int>(op)].symbol; }

Ref<BinaryExpr> BinaryExpr::Make(BinaryOp op, ExprPtr lhs, ExprPtr rhs, Span span) {
  const char* sym = BinaryOpSymbol(op);
  DataType a = ScalarOperandDType(lhs, sym, "left", span);
  DataType b = ScalarOperandDType(rhs, sym, "right", span);
  DataType result;
  if (IsComparison(op) || IsLogical(op)) {
    result = DataType::BOOL;
  } else if (IsBitwise(op)) {
    if (!(a.is_int() || a.is_bool()) || !(b.is_int() || b.is_bool())) {
      ThrowTypeError(std::string("bitwise operator '") + sym + "' needs integer operands, got " + a.name() + " and " +
                         b.name(),
                     span);
    }
    result = PromoteTypes(a, b);
  } else if (op == BinaryOp::FloatDiv) {
    result = PromoteTypes(a, b);
    if (!result.is_float()) result = DataType::FP32;
  } else {
    result = PromoteTypes(a, b);
  }
  auto e = std::make_shared<BinaryExpr>();
  e->op = op;
  e->lhs = std::move(lhs);
  e->rhs = std::move(rhs);
  e->type = ScalarType::Make(result);
  e->span = std::move(span);
  return e;
}
DataType BinaryExpr::dtype() const { return *ScalarDType(type); }

Ref<UnaryExpr> UnaryExpr::Make(UnaryOp op, ExprPtr operand, Span span) {
  PYPTO_CHECK(op != UnaryOp::Cast, "use UnaryExpr::MakeCast for casts");
  DataType a = ScalarOperandDType(operand, UnaryOpSymbol(op), "", span);
  auto e = std::make_shared<UnaryExpr>();
  e->op = op;
  e->operand = std::move(operand);
  e->type = ScalarType::Make(op == UnaryOp::Not ? DataType::BOOL : a);
  e->span = std::move(span);
  return e;
}

Ref<UnaryExpr> UnaryExpr::MakeCast(ExprPtr operand, DataType dtype, Span span) {
  ScalarOperandDType(operand, "cast", "", span);
  auto e = std::make_shared<UnaryExpr>();
  e->op = UnaryOp::Cast;
  e->operand = std::move(operand);
  e->type = ScalarType::Make(dtype);
  e->span = std::move(span);
  return e;
}
DataType UnaryExpr::dtype() const { return *ScalarDType(type); }

Ref<Op> Op::Get(const std::string& name) {
  static std::mutex mutex;
  static std::unordered_map<std::string, Ref<Op>> interned;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = interned.find(name);
  if (it != interned.end()) return it->second;
  auto op = std::make_shared<Op>();
  op->name = name;
  interned.emplace(name, op);
  return op;
}

Ref<GlobalVar> GlobalVar::Make(std::string name, Span span) {
  auto g = std::make_shared<GlobalVar>();
  g->name = std::move(name);
  g->span = std::move(span);
  return g;
}

Ref<Call> Call::Make(OpPtr op, std::vector<ExprPtr> args, Attrs kwargs, TypePtr type, Span span, Attrs attrs) {
  auto c = std::make_shared<Call>();
  c->op = std::move(op);
  c->args = std::move(args);
  c->kwargs = std::move(kwargs);
  c->attrs = std::move(attrs);
  c->type = type ? std::move(type) : UnknownType::Make();
  c->span = std::move(span);
  return c;
}

Ref<MakeTuple> MakeTuple::Make(std::vector<ExprPtr> elements, Span span) {
  auto t = std::make_shared<MakeTuple>();
  std::vector<TypePtr> types;
  for (const auto& e : elements) types.push_back(e->type);
  t->elements = std::move(elements);
  t->type = TupleType::Make(std::move(types));
  t->span = std::move(span);
  return t;
}

Ref<TupleGetItem> TupleGetItem::Make(ExprPtr tuple, int64_t index, Span span) {
  auto tt = As<TupleType>(tuple->type);
  if (!tt) ThrowTypeError("cannot index a value of type " + TypeToString(tuple->type) + "; only tuples", span);
  if (index < 0 || index >= static_cast<int64_t>(tt->fields.size())) {
    throw Error(ErrorKind::kIndex,
                "tuple index " + std::to_string(index) + " out of range for a tuple of " +
                    std::to_string(tt->fields.size()) + " elements",
                span);
  }
  auto g = std::make_shared<TupleGetItem>();
  g->type = tt->fields[index];
  g->tuple = std::move(tuple);
  g->index = index;
  g->span = std::move(span);
  return g;
}

std::vector<TypePtr> CallResultTypes(const TypePtr& call_type) {
  if (!call_type || IsA<UnknownType>(call_type)) return {};
  if (auto tuple = As<TupleType>(call_type)) return tuple->fields;
  return {call_type};
}

TypePtr SubmitType(const TypePtr& call_type) {
  std::vector<TypePtr> fields = CallResultTypes(call_type);
  fields.push_back(ScalarType::Make(DataType::TASK_ID));
  return TupleType::Make(std::move(fields));
}

Ref<Submit> Submit::Make(ExprPtr call, std::vector<ExprPtr> deps, Attrs attrs, Span span) {
  auto kernel = As<Call>(call);
  if (!kernel || !kernel->is_function_call()) {
    ThrowTypeError("a submit launches a function of the program (pl.submit(self.k, ...)), not " +
                       (kernel ? "op '" + kernel->op->name + "'" : std::string("a ") + call->type_name()),
                   span);
  }
  auto s = std::make_shared<Submit>();
  s->type = SubmitType(kernel->type);
  s->call = std::move(call);
  s->deps = std::move(deps);
  s->attrs = std::move(attrs);
  s->span = std::move(span);
  return s;
}

Ref<Call> Submit::kernel_call() const { return As<Call>(call); }

int64_t Submit::task_id_index() const {
  return static_cast<int64_t>(CallResultTypes(call ? call->type : nullptr).size());
}

Ref<ConstInt> Int(int64_t value, DataType dtype) { return ConstInt::Make(value, dtype); }
Ref<ConstFloat> Float(double value, DataType dtype) { return ConstFloat::Make(value, dtype); }
Ref<ConstBool> Bool(bool value) { return ConstBool::Make(value); }
std::vector<ExprPtr> Ints(const std::vector<int64_t>& values) {
  std::vector<ExprPtr> out;
  for (int64_t v : values) out.push_back(Int(v));
  return out;
}
std::optional<int64_t> AsConstInt(const ExprPtr& e) {
  if (auto c = As<ConstInt>(e)) return c->value;
  return std::nullopt;
}

// ---------------------------------------------------------------- statements

Ref<AssignStmt> AssignStmt::Make(VarPtr var, ExprPtr value, Span span) {
  auto s = std::make_shared<AssignStmt>();
  s->var = std::move(var);
  s->value = std::move(value);
  s->span = std::move(span);
  return s;
}

Ref<EvalStmt> EvalStmt::Make(ExprPtr expr, Span span) {
  auto s = std::make_shared<EvalStmt>();
  s->expr = std::move(expr);
  s->span = std::move(span);
  return s;
}

Ref<SeqStmts> SeqStmts::Make(std::vector<StmtPtr> stmts, Span span) {
  auto s = std::make_shared<SeqStmts>();
  s->stmts = std::move(stmts);
  s->span = std::move(span);
  return s;
}

Ref<IfStmt> IfStmt::Make(ExprPtr condition, StmtPtr then_body, StmtPtr else_body, std::vector<VarPtr> return_vars,
                         Span span) {
  auto s = std::make_shared<IfStmt>();
  s->condition = std::move(condition);
  s->then_body = std::move(then_body);
  s->else_body = std::move(else_body);
  s->return_vars = std::move(return_vars);
  s->span = std::move(span);
  return s;
}

Ref<ForStmt> ForStmt::Make(VarPtr loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
                           std::vector<IterArgPtr> iter_args, StmtPtr body, std::vector<VarPtr> return_vars,
                           ForKind for_kind, Attrs attrs, Span span) {
  auto s = std::make_shared<ForStmt>();
  s->loop_var = std::move(loop_var);
  s->start = std::move(start);
  s->stop = std::move(stop);
  s->step = std::move(step);
  s->iter_args = std::move(iter_args);
  s->body = std::move(body);
  s->return_vars = std::move(return_vars);
  s->for_kind = for_kind;
  s->attrs = std::move(attrs);
  s->span = std::move(span);
  return s;
}

Ref<WhileStmt> WhileStmt::Make(ExprPtr condition, std::vector<IterArgPtr> iter_args, StmtPtr body,
                               std::vector<VarPtr> return_vars, Span span) {
  auto s = std::make_shared<WhileStmt>();
  s->condition = std::move(condition);
  s->iter_args = std::move(iter_args);
  s->body = std::move(body);
  s->return_vars = std::move(return_vars);
  s->span = std::move(span);
  return s;
}

Ref<YieldStmt> YieldStmt::Make(std::vector<ExprPtr> values, Span span) {
  auto s = std::make_shared<YieldStmt>();
  s->values = std::move(values);
  s->span = std::move(span);
  return s;
}

Ref<ReturnStmt> ReturnStmt::Make(std::vector<ExprPtr> values, Span span) {
  auto s = std::make_shared<ReturnStmt>();
  s->values = std::move(values);
  s->span = std::move(span);
  return s;
}

Ref<BreakStmt> BreakStmt::Make(Span span) {
  auto s = std::make_shared<BreakStmt>();
  s->span = std::move(span);
  return s;
}

Ref<ContinueStmt> ContinueStmt::Make(Span span) {
  auto s = std::make_shared<ContinueStmt>();
  s->span = std::move(span);
  return s;
}

Ref<ScopeStmt> ScopeStmt::Make(ScopeKind scope_kind, StmtPtr body, std::string name_hint, Span span) {
  auto s = std::make_shared<ScopeStmt>();
  s->scope_kind = scope_kind;
  s->body = std::move(body);
  s->name_hint = std::move(name_hint);
  s->span = std::move(span);
  return s;
}

StmtPtr MakeSeq(std::vector<StmtPtr> stmts, Span span) {
  std::vector<StmtPtr> flat;
  for (auto& s : stmts) {
    if (!s) continue;
    if (auto seq = As<SeqStmts>(s)) {
      auto inner = Flatten(seq);
      flat.insert(flat.end(), inner.begin(), inner.end());
    } else {
      flat.push_back(std::move(s));
    }
  }
  if (flat.size() == 1) return flat[0];
  return SeqStmts::Make(std::move(flat), std::move(span));
}

std::vector<StmtPtr> Flatten(const StmtPtr& body) {
  if (!body) return {};
  auto seq = As<SeqStmts>(body);
  if (!seq) return {body};
  std::vector<StmtPtr> out;
  for (const auto& s : seq->stmts) {
    auto inner = Flatten(s);
    out.insert(out.end(), inner.begin(), inner.end());
  }
  return out;
}

// ---------------------------------------------------------------- functions

Ref<Function> Function::Make(std::string name, FunctionType func_type, std::vector<VarPtr> params,
                             std::vector<ParamDirection> param_directions, std::vector<TypePtr> return_types,
                             StmtPtr body, Span span) {
  if (param_directions.empty()) param_directions.assign(params.size(), ParamDirection::In);
  if (param_directions.size() != params.size()) {
    ThrowValueError("function '" + name + "' has " + std::to_string(params.size()) + " params but " +
                        std::to_string(param_directions.size()) + " param directions",
                    span);
  }
  auto f = std::make_shared<Function>();
  f->name = std::move(name);
  f->func_type = func_type;
  f->params = std::move(params);
  f->param_directions = std::move(param_directions);
  f->return_types = std::move(return_types);
  f->body = std::move(body);
  f->span = std::move(span);
  return f;
}

bool IsCoreKernel(FunctionType type) {
  return type == FunctionType::InCore || type == FunctionType::AIC || type == FunctionType::AIV;
}

namespace {
void SortAndCheckUnique(std::vector<FunctionPtr>& functions, const std::string& program) {
  std::sort(functions.begin(), functions.end(), [](const FunctionPtr& a, const FunctionPtr& b) { return a->name < b->name; });
  for (size_t i = 1; i < functions.size(); ++i) {
    if (functions[i]->name == functions[i - 1]->name) {
      ThrowValueError("program '" + program + "' defines function '" + functions[i]->name +
                          "' twice; rename one of them",
                      functions[i]->span);
    }
  }
}
}  // namespace

Ref<Program> Program::Make(std::string name, std::vector<FunctionPtr> functions, Span span) {
  SortAndCheckUnique(functions, name);
  auto p = std::make_shared<Program>();
  p->name = std::move(name);
  p->functions = std::move(functions);
  p->span = std::move(span);
  return p;
}

FunctionPtr Program::Find(const std::string& function_name) const {
  for (const auto& f : functions) {
    if (f->name == function_name) return f;
  }
  return nullptr;
}

Ref<Program> Program::WithFunction(FunctionPtr function) const {
  auto functions_copy = functions;
  auto it = std::find_if(functions_copy.begin(), functions_copy.end(),
                         [&](const FunctionPtr& f) { return f->name == function->name; });
  if (it != functions_copy.end()) {
    *it = std::move(function);
  } else {
    functions_copy.push_back(std::move(function));
  }
  return Make(name, std::move(functions_copy), span);
}

Ref<Program> Program::WithoutFunction(const std::string& function_name) const {
  std::vector<FunctionPtr> rest;
  for (const auto& f : functions) {
    if (f->name != function_name) rest.push_back(f);
  }
  return Make(name, std::move(rest), span);
}

ProgramPtr MapFunctions(const ProgramPtr& program, const std::function<FunctionPtr(const FunctionPtr&)>& rewrite) {
  std::vector<FunctionPtr> rewritten;
  bool changed = false;
  for (const auto& f : program->functions) {
    rewritten.push_back(rewrite(f));
    changed |= rewritten.back() != f;
  }
  if (!changed) return program;
  auto copy = std::make_shared<Program>(*program);
  copy->functions = std::move(rewritten);
  return copy;
}

}  // namespace pypto::ir
