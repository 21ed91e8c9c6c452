// The IR printer. The spelling of every construct is documented in printer.h.
//
// Text is always built left to right in separate statements: names are handed
// out on first appearance, so the order in which sub-texts are computed is the
// order of the names (C++ leaves the order of `f() + g()` unspecified).
#include "pypto/ir/printer.h"

#include <array>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include "printer_text.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::ir {

namespace {

using printer::NameTable;

// Python's operator precedence, loosest first.
enum Precedence : int {
  kLowest = 0,
  kOr = 3,
  kAnd = 4,
  kNot = 5,
  kCompare = 6,
  kBitOr = 7,
  kBitXor = 8,
  kBitAnd = 9,
  kShift = 10,
  kAdd = 11,
  kMul = 12,
  kUnary = 13,
  kPow = 14,
  kAtom = 16,
};

// Precedence of a binary operator written infix; function-style ones are atoms.
int BinaryPrecedence(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add:
    case BinaryOp::Sub: return kAdd;
    case BinaryOp::Mul:
    case BinaryOp::FloorDiv:
    case BinaryOp::FloorMod:
    case BinaryOp::FloatDiv: return kMul;
    case BinaryOp::Pow: return kPow;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: return kCompare;
    case BinaryOp::And: return kAnd;
    case BinaryOp::Or: return kOr;
    case BinaryOp::BitAnd: return kBitAnd;
    case BinaryOp::BitOr: return kBitOr;
    case BinaryOp::BitXor: return kBitXor;
    case BinaryOp::BitShiftLeft:
    case BinaryOp::BitShiftRight: return kShift;
    case BinaryOp::Min:
    case BinaryOp::Max:
    case BinaryOp::Xor: break;
  }
  return kAtom;
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or; }

// The operator of an and/or expression.
std::optional<BinaryOp> LogicalOp(const ExprPtr& e) {
  auto binary = As<BinaryExpr>(e);
  if (binary && IsLogical(binary->op)) return binary->op;
  return std::nullopt;
}

// A literal the printer writes without its dtype (`5`, `1.0`, `True`).
bool IsBareLiteral(const ExprPtr& e) {
  if (auto c = As<ConstInt>(e)) return IsScalarType(c->type, DataType::INDEX);
  if (auto c = As<ConstFloat>(e)) return IsScalarType(c->type, DataType::FP32);
  return IsA<ConstBool>(e);
}

const char* ForKindFunction(ForKind kind) {
  switch (kind) {
    case ForKind::Sequential: break;
    case ForKind::Parallel: return "parallel";
    case ForKind::Unroll: return "unroll";
    case ForKind::Pipeline: return "pipeline";
  }
  return "range";
}

ops::AttrKind AttrKindOf(const AttrValue& value) {
  static constexpr std::array<ops::AttrKind, std::variant_size_v<AttrValue>> kKinds = {
      ops::AttrKind::kBool,     ops::AttrKind::kInt,  ops::AttrKind::kFloat,   ops::AttrKind::kString,
      ops::AttrKind::kDataType, ops::AttrKind::kEnum, ops::AttrKind::kExpr,    ops::AttrKind::kIntList,
      ops::AttrKind::kStringList, ops::AttrKind::kExprList};
  return kKinds[value.index()];
}

// Whether the registered schema of the called op declares `key` with the
// kind `value` has, so the parser can read the value by that kind.
bool KwargTypedBySchema(const Call& call, const std::string& key, const AttrValue& value) {
  if (!call.op || call.is_function_call()) return false;
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
  if (def == nullptr) return false;
  const ops::KwargSpec* spec = def->FindKwarg(key);
  return spec != nullptr && spec->kind == AttrKindOf(value);
}

std::string JoinTexts(const std::vector<std::string>& parts) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += ", ";
    out += parts[i];
  }
  return out;
}

// `(a,)` or `(a, b)`: a Python tuple display of the given element texts.
std::string TupleDisplay(const std::vector<std::string>& parts) {
  return "(" + JoinTexts(parts) + (parts.size() == 1 ? ",)" : ")");
}

// ---------------------------------------------------------------- pre-pass

class ExprVarCollector : public IRVisitor {
 public:
  using IRVisitor::Visit_;
  explicit ExprVarCollector(std::vector<VarPtr>& out) : out_(out) {}
  void Visit_(const Ref<Var>& var) override { out_.push_back(var); }

 private:
  std::vector<VarPtr>& out_;
};

// The variables that the expressions inside a type mention, in order.
void CollectTypeVars(const TypePtr& type, std::vector<VarPtr>& out) {
  ExprVarCollector collector(out);
  auto visit = [&](const ExprPtr& e) {
    if (e) collector.VisitExpr(e);
  };
  auto visit_all = [&](const std::vector<ExprPtr>& exprs) {
    for (const auto& e : exprs) visit(e);
  };
  if (auto t = As<TensorType>(type)) {
    visit_all(t->shape);
    if (t->view) {
      visit_all(t->view->strides);
      visit_all(t->view->valid_shape);
    }
  } else if (auto t = As<TileType>(type)) {
    visit_all(t->shape);
    visit_all(t->valid_shape);
    if (t->memref) visit(t->memref->byte_offset);
  } else if (auto t = As<TupleType>(type)) {
    for (const auto& field : t->fields) CollectTypeVars(field, out);
  } else if (auto t = As<ArrayType>(type)) {
    visit(t->size);
  }
}

// What naming one function needs in advance: the variables it binds, and its
// dynamic dims (scalar Vars its binding sites' and signature's types mention
// but it never binds), in order of appearance.
struct FunctionVars {
  std::unordered_set<const Var*> bound;
  std::vector<VarPtr> dynamic_dims;
};

class FunctionVarCollector : public IRVisitor {
 public:
  FunctionVars Collect(const Function& function) {
    for (const auto& param : function.params) VisitVarDef(param);
    for (const auto& type : function.return_types) printed_types_.push_back(type);
    if (function.body) VisitStmt(function.body);
    FunctionVars result;
    result.bound = bound_;
    std::unordered_set<const Var*> seen;
    for (const auto& type : printed_types_) {
      std::vector<VarPtr> vars;
      CollectTypeVars(type, vars);
      for (const auto& var : vars) {
        if (!IsA<ScalarType>(var->type) || bound_.count(var.get()) > 0) continue;
        if (seen.insert(var.get()).second) result.dynamic_dims.push_back(var);
      }
    }
    return result;
  }

  void VisitVarDef(const VarPtr& var) override {
    bound_.insert(var.get());
    printed_types_.push_back(var->type);
    IRVisitor::VisitVarDef(var);
  }

 private:
  std::unordered_set<const Var*> bound_;
  std::vector<TypePtr> printed_types_;
};

// ---------------------------------------------------------------- printer

struct Text {
  std::string text;
  int precedence;
};

// One piece of a body: a statement and the comments of the SeqStmts that
// opened just before it.
struct BlockItem {
  StmtPtr stmt;
  std::vector<std::string> outer_comments;
};

void FlattenBlock(const StmtPtr& stmt, std::vector<std::string>& pending_comments, std::vector<BlockItem>& items) {
  if (!stmt) return;
  if (auto seq = As<SeqStmts>(stmt)) {
    pending_comments.insert(pending_comments.end(), seq->leading_comments.begin(), seq->leading_comments.end());
    for (const auto& child : seq->stmts) FlattenBlock(child, pending_comments, items);
    return;
  }
  items.push_back({stmt, std::move(pending_comments)});
  pending_comments.clear();
}

class Printer {
 public:
  explicit Printer(const PrintOptions& options) : options_(options), p_(options.prefix + ".") {
    if (!printer::IsIdentifier(options.prefix)) {
      ThrowValueError("PrintOptions.prefix '" + options.prefix +
                      "' is not a Python identifier; use a plain module alias such as 'pl'");
    }
    for (const char* name : {"self", "abs", "float", "list", "str", "tuple"}) module_table_.Reserve(name);
    module_table_.Reserve(options.prefix);
    local_table_ = module_table_;
  }

  // Window parameters print as pld.DistributedTensor, and the ops of pld (a host orchestrator's window
  // buffers and dispatches, a kernel's signals) as pld.*: the text must import it.
  static bool UsesWindows(const Program& program) {
    class PldOps : public IRVisitor {
     public:
      bool found = false;
      void Visit_(const Ref<Call>& call) override {
        const ops::OpDef* def = call->is_function_call() ? nullptr : ops::OpRegistry::Global().Find(call->op->name);
        found = found || (def && def->dsl_module() == "pld");
        IRVisitor::Visit_(call);
      }
    } pld_ops;
    for (const auto& function : program.functions) {
      for (const auto& param : function->params) {
        if (IsA<DistributedTensorType>(param->type)) return true;
      }
      pld_ops.VisitFunction(function);
    }
    return pld_ops.found;
  }

  std::string ProgramText(const Program& program) {
    class_name_ = module_table_.Claim(program.name);
    PlanNames(program.functions);
    std::string title;
    for (const auto& line : printer::CommentLines(program.name)) title += (title.empty() ? "" : " ") + line;
    out_ << "# pypto.program: " << title << "\n";
    out_ << "import pypto.language as " << options_.prefix << "\n";
    if (UsesWindows(program)) out_ << "import pypto.language.distributed as pld\n";
    out_ << "\n";
    for (const auto& dim : dynamic_dims_) {
      out_ << module_names_.at(dim.get()) << " = " << p_ << "dynamic(" << printer::StringLiteral(dim->name_hint);
      DataType dtype = *ScalarDType(dim->type);
      if (dtype != DataType::INDEX) out_ << ", " << DType(dtype);
      out_ << ")\n";
    }
    if (!dynamic_dims_.empty()) out_ << "\n";
    out_ << "@" << p_ << "program\n";
    out_ << "class " << class_name_ << ":\n";
    for (size_t i = 0; i < program.functions.size(); ++i) {
      if (i > 0) out_ << "\n";
      FunctionDef(*program.functions[i], 1);
    }
    if (program.functions.empty()) Line(1, "pass");
    return out_.str();
  }

  std::string FunctionText(const FunctionPtr& function) {
    PlanNames({function});
    FunctionDef(*function, 0);
    return out_.str();
  }

  std::string NodeText(const NodePtr& node) {
    if (!node) return "None";
    if (auto program = As<Program>(node)) return ProgramText(*program);
    if (auto function = As<Function>(node)) return FunctionText(function);
    if (auto stmt = As<Stmt>(node)) {
      Block(stmt, 0, nullptr, "");
      return out_.str();
    }
    if (auto expr = As<Expr>(node)) return PrintExpr(expr);
    if (auto type = As<Type>(node)) return PrintType(type);
    if (auto global = As<GlobalVar>(node)) return "self." + FunctionName(global->name);
    if (auto op = As<Op>(node)) return OpPrefix(op->name) + OpPath(op->name);
    ThrowInternalError(std::string("PrintNode has no spelling for a ") + node->type_name());
  }

 private:
  // ---------------------------------------------------------------- names

  // Function names first (they are what calls refer to), then the dynamic
  // dims; every local name avoids all of them.
  void PlanNames(const std::vector<FunctionPtr>& functions) {
    NameTable function_table;
    for (const auto& function : functions) {
      std::string name = function_table.Claim(function->name);
      module_table_.Reserve(name);
      function_names_.emplace(function->name, std::move(name));
    }
    for (const auto& function : functions) {
      FunctionVars vars = FunctionVarCollector().Collect(*function);
      for (const auto& dim : vars.dynamic_dims) {
        if (module_names_.count(dim.get()) > 0) continue;
        module_names_.emplace(dim.get(), module_table_.Claim(dim->name_hint));
        dynamic_dims_.push_back(dim);
      }
      bound_vars_.emplace(function.get(), std::move(vars.bound));
    }
  }

  void EnterFunction(const Function& function) {
    local_table_ = module_table_;
    local_names_.clear();
    bound_ = &bound_vars_.at(&function);
  }

  // A Var the function binds gets a local name; a dynamic dim its module
  // name; anything else (a free variable) a local name too.
  const std::string& Name(const Var& var) {
    if (auto it = local_names_.find(&var); it != local_names_.end()) return it->second;
    const bool bound_here = bound_ != nullptr && bound_->count(&var) > 0;
    if (!bound_here) {
      if (auto it = module_names_.find(&var); it != module_names_.end()) return it->second;
    }
    return local_names_.emplace(&var, local_table_.Claim(var.name_hint)).first->second;
  }

  std::string FunctionName(const std::string& name) const {
    if (auto it = function_names_.find(name); it != function_names_.end()) return it->second;
    return printer::ToIdentifier(name);
  }

  // `pl.` for most ops; `pld.` for the distributed ones, which the DSL reaches through pld.
  std::string OpPrefix(const std::string& name) const {
    const ops::OpDef* def = ops::OpRegistry::Global().Find(name);
    return def != nullptr && def->dsl_module() == "pld" ? "pld." : p_;
  }

  static std::string OpPath(const std::string& name) {
    std::string path;
    size_t start = 0;
    while (true) {
      const size_t dot = name.find('.', start);
      path += printer::ToIdentifier(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
      if (dot == std::string::npos) return path;
      path += ".";
      start = dot + 1;
    }
  }

  // ---------------------------------------------------------------- statements

  void Line(int indent, const std::string& text) { out_ << std::string(4 * indent, ' ') << text << "\n"; }

  void Comments(int indent, const std::vector<std::string>& comments) {
    for (const auto& comment : comments) {
      for (const auto& line : printer::CommentLines(comment)) Line(indent, line.empty() ? "#" : "# " + line);
    }
  }

  void FunctionDef(const Function& function, int indent) {
    EnterFunction(function);
    std::vector<std::string> decorator_args;
    if (function.func_type != FunctionType::Opaque) decorator_args.push_back("type=" + Enum(function.func_type));
    if (function.level) decorator_args.push_back("level=" + Enum(*function.level));
    if (function.role) decorator_args.push_back("role=" + Enum(*function.role));
    std::string decorator = "@" + p_ + "function";
    if (!decorator_args.empty()) decorator += "(" + JoinTexts(decorator_args) + ")";
    Line(indent, decorator);

    std::string header = "def " + FunctionName(function.name) + "(self";
    for (size_t i = 0; i < function.params.size(); ++i) {
      header += ", ";
      header += Name(*function.params[i]);
      header += ": ";
      header += ParamType(function, i);
    }
    header += ")";
    if (function.return_types.size() == 1) {
      header += " -> ";
      header += PrintType(function.return_types[0]);
    } else if (function.return_types.size() > 1) {
      std::vector<std::string> types;
      for (const auto& type : function.return_types) types.push_back(PrintType(type));
      header += " -> tuple[" + JoinTexts(types) + "]";
    }
    Line(indent, header + ":");

    std::string attrs_line;
    if (!function.attrs.empty()) attrs_line = p_ + "func_attr(" + AttrDict(function.attrs) + ")";
    Block(function.body, indent + 1, nullptr, attrs_line);
  }

  std::string ParamType(const Function& function, size_t index) {
    const std::string type = PrintType(function.params[index]->type);
    const ParamDirection direction =
        index < function.param_directions.size() ? function.param_directions[index] : ParamDirection::In;
    switch (direction) {
      case ParamDirection::In: break;
      case ParamDirection::Out: return p_ + "Out[" + type + "]";
      case ParamDirection::InOut: return p_ + "InOut[" + type + "]";
    }
    return type;
  }

  // Prints a body. `yield_targets` are the return_vars of the enclosing if or
  // loop, which the body's trailing yield assigns; `first_line` goes before
  // the statements (the loop condition or the function attrs).
  void Block(const StmtPtr& body, int indent, const std::vector<VarPtr>* yield_targets, const std::string& first_line) {
    std::vector<std::string> pending_comments;
    std::vector<BlockItem> items;
    FlattenBlock(body, pending_comments, items);
    if (!first_line.empty()) Line(indent, first_line);
    for (size_t i = 0; i < items.size(); ++i) {
      const StmtPtr& stmt = items[i].stmt;
      Comments(indent, items[i].outer_comments);
      Comments(indent, stmt->leading_comments);
      auto yield = As<YieldStmt>(stmt);
      const bool is_last = i + 1 == items.size();
      const bool assigns_targets = yield && is_last && yield_targets != nullptr && !yield_targets->empty();
      if (assigns_targets) {
        YieldAssign(*yield, indent, *yield_targets);
      } else if (size_t taken = SubmitUnpack(items, i, indent); taken > 0) {
        i += taken;
      } else {
        Statement(stmt, indent);
      }
    }
    Comments(indent, pending_comments);
    if (items.empty() && first_line.empty()) Line(indent, "pass");
  }

  // `r, tid = pl.submit(...)`: a submit bound to a tuple that only the
  // statements right after it take apart (items in increasing order, one
  // variable each) prints as one unpacking assignment, an item nobody takes
  // as `_`; the parser binds the same statements back. Returns the number of
  // statements taken besides the submit (0: not this form).
  size_t SubmitUnpack(const std::vector<BlockItem>& items, size_t i, int indent) {
    auto assign = As<AssignStmt>(items[i].stmt);
    auto tuple = assign ? As<TupleType>(assign->var->type) : nullptr;
    if (!tuple || !IsA<Submit>(assign->value)) return 0;
    const Var* task = assign->var.get();
    std::vector<std::string> names(tuple->fields.size(), "_");
    int64_t last = -1;
    size_t end = i + 1;
    for (; end < items.size(); ++end) {
      if (!items[end].outer_comments.empty() || !items[end].stmt->leading_comments.empty()) break;
      auto take = As<AssignStmt>(items[end].stmt);
      auto item = take ? As<TupleGetItem>(take->value) : nullptr;
      if (!item || item->tuple.get() != task || item->index <= last) break;
      last = item->index;
      names[static_cast<size_t>(item->index)] = Name(*take->var);
    }
    if (end == i + 1 || UsedAfter(task, items, end)) return 0;
    Line(indent, JoinTexts(names) + " = " + PrintExpr(assign->value));
    return end - i - 1;
  }

  static bool UsedAfter(const Var* var, const std::vector<BlockItem>& items, size_t from) {
    struct Finder : IRVisitor {
      using IRVisitor::Visit_;
      const Var* target = nullptr;
      bool found = false;
      void Visit_(const Ref<Var>& v) override { found |= v.get() == target; }
    } finder;
    finder.target = var;
    for (size_t k = from; k < items.size() && !finder.found; ++k) finder.VisitStmt(items[k].stmt);
    return finder.found;
  }

  void Statement(const StmtPtr& stmt, int indent) {
    switch (stmt->kind()) {
      case NodeKind::kAssignStmt: return Assign(static_cast<const AssignStmt&>(*stmt), indent);
      case NodeKind::kEvalStmt: return Line(indent, PrintExpr(static_cast<const EvalStmt&>(*stmt).expr));
      case NodeKind::kSeqStmts: return Block(stmt, indent, nullptr, "");
      case NodeKind::kIfStmt: return If(static_cast<const IfStmt&>(*stmt), indent);
      case NodeKind::kForStmt: return For(static_cast<const ForStmt&>(*stmt), indent);
      case NodeKind::kWhileStmt: return While(static_cast<const WhileStmt&>(*stmt), indent);
      case NodeKind::kYieldStmt:
        return Line(indent, p_ + "yield_(" + ExprList(static_cast<const YieldStmt&>(*stmt).values) + ")");
      case NodeKind::kReturnStmt: return Return(static_cast<const ReturnStmt&>(*stmt), indent);
      case NodeKind::kBreakStmt: return Line(indent, "break");
      case NodeKind::kContinueStmt: return Line(indent, "continue");
      case NodeKind::kScopeStmt: return Scope(static_cast<const ScopeStmt&>(*stmt), indent);
      default: ThrowInternalError(std::string("the printer met a ") + stmt->type_name() + " in statement position");
    }
  }

  // `name: Type` in verbose mode when the type has a spelling, else `name`.
  std::string Target(const Var& var) {
    std::string text = Name(var);
    if (options_.concise || !var.type || IsA<UnknownType>(var.type)) return text;
    text += ": ";
    text += PrintType(var.type);
    return text;
  }

  void Assign(const AssignStmt& assign, int indent) {
    std::string text = Target(*assign.var);
    text += " = ";
    text += PrintExpr(assign.value);
    Line(indent, text);
  }

  void YieldAssign(const YieldStmt& yield, int indent, const std::vector<VarPtr>& targets) {
    std::string text;
    if (targets.size() == 1) {
      text = Target(*targets[0]);
    } else {
      for (size_t i = 0; i < targets.size(); ++i) {
        if (i > 0) text += ", ";
        text += Name(*targets[i]);
      }
    }
    text += " = " + p_ + "yield_(";
    text += ExprList(yield.values);
    Line(indent, text + ")");
  }

  void Return(const ReturnStmt& ret, int indent) {
    if (ret.values.empty()) return Line(indent, "return");
    Line(indent, "return " + ExprList(ret.values));
  }

  void If(const IfStmt& stmt, int indent) {
    Line(indent, "if " + PrintExpr(stmt.condition) + ":");
    Block(stmt.then_body, indent + 1, &stmt.return_vars, "");
    if (!stmt.else_body) return;
    Line(indent, "else:");
    Block(stmt.else_body, indent + 1, &stmt.return_vars, "");
  }

  // `(a, b)` of the iter_args' names, and the matching `init_values=(x, y)`.
  std::string IterArgTargets(const std::vector<IterArgPtr>& iter_args) {
    std::vector<std::string> names;
    for (const auto& iter_arg : iter_args) names.push_back(Name(*iter_arg));
    return TupleDisplay(names);
  }
  std::string InitValues(const std::vector<IterArgPtr>& iter_args) {
    std::vector<std::string> values;
    for (const auto& iter_arg : iter_args) values.push_back(PrintExpr(iter_arg->init_value));
    return "init_values=" + TupleDisplay(values);
  }

  void For(const ForStmt& loop, int indent) {
    std::string text = "for " + Name(*loop.loop_var);
    if (!loop.iter_args.empty()) text += ", " + IterArgTargets(loop.iter_args);
    text += " in " + p_ + ForKindFunction(loop.for_kind) + "(";
    std::vector<std::string> args;
    args.push_back(PrintExpr(loop.start));
    args.push_back(PrintExpr(loop.stop));
    args.push_back(PrintExpr(loop.step));
    if (!loop.iter_args.empty()) args.push_back(InitValues(loop.iter_args));
    Keywords(loop.attrs, {"init_values"}, nullptr, args);
    Line(indent, text + JoinTexts(args) + "):");
    Block(loop.body, indent + 1, &loop.return_vars, "");
  }

  void While(const WhileStmt& loop, int indent) {
    if (loop.iter_args.empty()) {
      Line(indent, "while " + PrintExpr(loop.condition) + ":");
      Block(loop.body, indent + 1, &loop.return_vars, "");
      return;
    }
    std::string text = "for " + IterArgTargets(loop.iter_args);
    text += " in " + p_ + "while_(" + InitValues(loop.iter_args) + "):";
    Line(indent, text);
    Block(loop.body, indent + 1, &loop.return_vars, p_ + "cond(" + PrintExpr(loop.condition) + ")");
  }

  void Scope(const ScopeStmt& scope, int indent) {
    std::vector<std::string> args;
    std::string function;
    switch (scope.scope_kind) {
      case ScopeKind::InCore:
        function = "at";
        args.push_back("level=" + Enum(Level::CORE_GROUP));
        break;
      case ScopeKind::Hierarchy:
        function = "at";
        if (scope.level) args.push_back("level=" + Enum(*scope.level));
        if (scope.role) args.push_back("role=" + Enum(*scope.role));
        break;
      case ScopeKind::Spmd:
        function = "spmd";
        if (scope.core_num) args.push_back(PrintExpr(scope.core_num));
        if (scope.sync_start) args.push_back("sync_start=True");
        break;
      case ScopeKind::Cluster: function = "cluster"; break;
      case ScopeKind::Runtime: function = "manual_scope"; break;
      case ScopeKind::SplitAiv:
        function = "split_aiv";
        args.push_back("2");
        args.push_back("mode=" + Enum(scope.split));
        break;
    }
    if (!scope.name_hint.empty()) args.push_back("name_hint=" + printer::StringLiteral(scope.name_hint));
    if (scope.scope_kind == ScopeKind::InCore) Optimizations(scope, args);
    Keywords(scope.attrs, {"level", "role", "core_num", "sync_start", "name_hint", "optimizations", "cross_core_slot"},
             nullptr, args);
    const std::string task_id = scope.task_id ? " as " + Name(*scope.task_id) : "";
    Line(indent, "with " + p_ + function + "(" + JoinTexts(args) + ")" + task_id + ":");
    Block(scope.body, indent + 1, nullptr, "");
  }

  // pl.at's optimizations=[...]: the split mode and the ring depth (kept in the scope's attrs).
  void Optimizations(const ScopeStmt& scope, std::vector<std::string>& args) {
    std::vector<std::string> options;
    if (scope.split != SplitMode::None) options.push_back(p_ + "split(" + Enum(scope.split) + ")");
    if (auto slots = scope.attrs.Get<int64_t>("cross_core_slot")) {
      options.push_back(p_ + "cross_core_slot(slot_num=" + std::to_string(*slots) + ")");
    }
    if (!options.empty()) args.push_back("optimizations=[" + JoinTexts(options) + "]");
  }

  // ---------------------------------------------------------------- expressions

  std::string PrintExpr(const ExprPtr& expr, int min_precedence = kLowest) {
    Text text = PrecedencedExpr(expr);
    if (text.precedence < min_precedence) return "(" + text.text + ")";
    return text.text;
  }

  std::string ExprList(const std::vector<ExprPtr>& exprs) {
    std::vector<std::string> parts;
    for (const auto& e : exprs) parts.push_back(PrintExpr(e));
    return JoinTexts(parts);
  }

  Text PrecedencedExpr(const ExprPtr& expr) {
    if (!expr) return {"None", kAtom};
    switch (expr->kind()) {
      case NodeKind::kVar:
      case NodeKind::kIterArg: return {Name(static_cast<const Var&>(*expr)), kAtom};
      case NodeKind::kMemRef: return {MemRefText(static_cast<const MemRef&>(*expr)), kAtom};
      case NodeKind::kConstInt: return IntLiteral(static_cast<const ConstInt&>(*expr));
      case NodeKind::kConstFloat: return FloatLiteral(static_cast<const ConstFloat&>(*expr));
      case NodeKind::kConstBool: return {static_cast<const ConstBool&>(*expr).value ? "True" : "False", kAtom};
      case NodeKind::kBinaryExpr: return Binary(static_cast<const BinaryExpr&>(*expr));
      case NodeKind::kUnaryExpr: return Unary(static_cast<const UnaryExpr&>(*expr));
      case NodeKind::kCall: return {CallText(static_cast<const Call&>(*expr)), kAtom};
      case NodeKind::kSubmit: return {SubmitText(static_cast<const Submit&>(*expr)), kAtom};
      case NodeKind::kMakeTuple: return {"[" + ExprList(static_cast<const MakeTuple&>(*expr).elements) + "]", kAtom};
      case NodeKind::kTupleGetItem: {
        const auto& item = static_cast<const TupleGetItem&>(*expr);
        std::string text = PrintExpr(item.tuple, kAtom);
        return {text + "[" + std::to_string(item.index) + "]", kAtom};
      }
      default: ThrowInternalError(std::string("the printer met a ") + expr->type_name() + " in expression position");
    }
  }

  Text IntLiteral(const ConstInt& c) {
    if (IsScalarType(c.type, DataType::INDEX)) return {std::to_string(c.value), c.value < 0 ? kUnary : kAtom};
    return {ExplicitLiteral(c), kAtom};
  }

  Text FloatLiteral(const ConstFloat& c) {
    if (!IsScalarType(c.type, DataType::FP32)) return {ExplicitLiteral(c), kAtom};
    std::string text = printer::FloatLiteral(c.value);
    return {text, text.front() == '-' ? kUnary : kAtom};
  }

  static DataType ScalarDTypeOr(const Expr& expr, DataType fallback) {
    return ScalarDType(expr.type).value_or(fallback);
  }

  // A literal with its dtype spelled out: `pl.const(5, pl.INDEX)`.
  std::string ExplicitLiteral(const Expr& literal) {
    std::string value;
    if (auto c = As<ConstInt>(&literal)) {
      value = std::to_string(c->value);
    } else if (auto c = As<ConstFloat>(&literal)) {
      value = printer::FloatLiteral(c->value);
    } else {
      value = static_cast<const ConstBool&>(literal).value ? "True" : "False";
    }
    return p_ + "const(" + value + ", " + DType(ScalarDTypeOr(literal, DataType::INDEX)) + ")";
  }

  // An expression whose kind the text alone must tell: literals spelled out.
  std::string SelfDescribingExpr(const ExprPtr& expr) {
    if (IsBareLiteral(expr)) return ExplicitLiteral(*expr);
    return PrintExpr(expr);
  }

  Text Binary(const BinaryExpr& e) {
    const int precedence = BinaryPrecedence(e.op);
    if (precedence == kAtom) {
      const char* function = e.op == BinaryOp::Min ? "min" : e.op == BinaryOp::Max ? "max" : "xor";
      std::string text = p_ + function + "(" + PrintExpr(e.lhs);
      text += ", " + PrintExpr(e.rhs) + ")";
      return {text, kAtom};
    }
    int lhs_min = precedence;
    int rhs_min = precedence + 1;
    if (e.op == BinaryOp::Pow) {
      lhs_min = kPow + 1;
      rhs_min = kUnary;
    } else if (precedence == kCompare) {
      lhs_min = kCompare + 1;
    }
    std::string text = Operand(e.lhs, e.op, lhs_min);
    text += " " + std::string(BinaryOpSymbol(e.op)) + " ";
    text += Operand(e.rhs, e.op, rhs_min);
    return {text, precedence};
  }

  // An and/or inside the other one is parenthesized although Python would not need it.
  std::string Operand(const ExprPtr& operand, BinaryOp parent, int min_precedence) {
    const auto inner = LogicalOp(operand);
    if (inner && IsLogical(parent) && *inner != parent) return "(" + PrintExpr(operand) + ")";
    return PrintExpr(operand, min_precedence);
  }

  Text Unary(const UnaryExpr& e) {
    switch (e.op) {
      case UnaryOp::Neg:
        if (IsBareLiteral(e.operand)) return {"-" + ExplicitLiteral(*e.operand), kUnary};
        return {"-" + PrintExpr(e.operand, kUnary), kUnary};
      case UnaryOp::BitNot: return {"~" + PrintExpr(e.operand, kUnary), kUnary};
      case UnaryOp::Not: return {"not " + PrintExpr(e.operand, kNot), kNot};
      case UnaryOp::Abs: return {"abs(" + PrintExpr(e.operand) + ")", kAtom};
      case UnaryOp::Cast: break;
    }
    std::string text = p_ + "cast(" + PrintExpr(e.operand);
    return {text + ", " + DType(ScalarDTypeOr(e, DataType::INDEX)) + ")", kAtom};
  }

  std::string CallText(const Call& call) {
    std::string callee = !call.op                   ? std::string("None")
                         : call.is_function_call() ? "self." + FunctionName(call.op->name)
                                                   : OpPrefix(call.op->name) + OpPath(call.op->name);
    std::vector<std::string> args;
    for (const auto& arg : call.args) args.push_back(PrintExpr(arg));
    Keywords(call.kwargs, {"attrs"}, &call, args);
    if (!call.attrs.empty()) args.push_back("attrs=" + AttrDict(call.attrs));
    return callee + "(" + JoinTexts(args) + ")";
  }

  // `pl.submit(self.k, args, deps=[...], <task options>, attrs={<call attrs>})`.
  // A grid launch, whose call attrs start with core_num (and sync_start), is
  // `pl.spmd_submit(self.k, args, core_num=N, sync_start=B, ...)`; the parser
  // puts those two first again, so attr order survives the round trip.
  std::string SubmitText(const Submit& submit) {
    auto call = submit.kernel_call();
    if (!call) ThrowInternalError("the printer met a Submit whose call is not a Call");
    const auto& entries = call->attrs.entries();
    const bool grid = !entries.empty() && entries[0].first == "core_num";
    size_t launch = grid ? 1 : 0;
    if (grid && entries.size() > 1 && entries[1].first == "sync_start") launch = 2;
    std::vector<std::string> args{"self." + FunctionName(call->op->name)};
    for (const auto& arg : call->args) args.push_back(PrintExpr(arg));
    for (size_t i = 0; i < launch; ++i) args.push_back(entries[i].first + "=" + AttrValueText(entries[i].second, true));
    if (!submit.deps.empty()) args.push_back("deps=[" + ExprList(submit.deps) + "]");
    Keywords(submit.attrs, {"deps", "attrs", "core_num", "sync_start"}, nullptr, args);
    Attrs rest;
    for (size_t i = launch; i < entries.size(); ++i) rest.mutable_entries().push_back(entries[i]);
    if (!rest.empty()) args.push_back("attrs=" + AttrDict(rest));
    return p_ + (grid ? "spmd_submit(" : "submit(") + JoinTexts(args) + ")";
  }

  std::string MemRefText(const MemRef& memref) {
    std::string text = p_ + "MemRef(" + printer::StringLiteral(Name(memref));
    text += ", " + PrintExpr(memref.byte_offset);
    text += ", " + std::to_string(memref.size);
    text += ", " + Enum(memref.memory_space);
    if (memref.base) text += ", base=" + PrintExpr(memref.base);
    return text + ")";
  }

  // ---------------------------------------------------------------- attributes

  // Appends `key=value` for each entry to `out`; entries whose key cannot be
  // a keyword here go into one trailing `**{...}`. With `call`, values the
  // op's schema types print plainly, the rest describe their kind.
  void Keywords(const Attrs& attrs, const std::set<std::string>& reserved, const Call* call,
                std::vector<std::string>& out) {
    std::vector<std::string> unpacked;
    for (const auto& [key, value] : attrs) {
      const bool typed = call != nullptr && KwargTypedBySchema(*call, key, value);
      std::string value_text = AttrValueText(value, typed);
      if (printer::IsIdentifier(key) && reserved.count(key) == 0) {
        out.push_back(key + "=" + value_text);
      } else {
        unpacked.push_back(printer::StringLiteral(key) + ": " + value_text);
      }
    }
    if (!unpacked.empty()) out.push_back("**{" + JoinTexts(unpacked) + "}");
  }

  std::string AttrDict(const Attrs& attrs) {
    std::vector<std::string> entries;
    for (const auto& [key, value] : attrs) {
      std::string text = printer::StringLiteral(key) + ": ";
      entries.push_back(text + AttrValueText(value, false));
    }
    return "{" + JoinTexts(entries) + "}";
  }

  std::string AttrValueText(const AttrValue& value, bool typed_by_schema) {
    return std::visit(
        [&](const auto& v) -> std::string {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>) {
            return v ? "True" : "False";
          } else if constexpr (std::is_same_v<T, int64_t>) {
            return std::to_string(v);
          } else if constexpr (std::is_same_v<T, double>) {
            return printer::FloatLiteral(v);
          } else if constexpr (std::is_same_v<T, std::string>) {
            return printer::StringLiteral(v);
          } else if constexpr (std::is_same_v<T, DataType>) {
            return DType(v);
          } else if constexpr (std::is_same_v<T, EnumAttr>) {
            return EnumAttrText(v);
          } else if constexpr (std::is_same_v<T, ExprPtr>) {
            return typed_by_schema ? PrintExpr(v) : SelfDescribingExpr(v);
          } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
            std::vector<std::string> parts;
            for (int64_t x : v) parts.push_back(std::to_string(x));
            return "[" + JoinTexts(parts) + "]";
          } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            if (v.empty() && !typed_by_schema) return "list[str]()";
            std::vector<std::string> parts;
            for (const auto& s : v) parts.push_back(printer::StringLiteral(s));
            return "[" + JoinTexts(parts) + "]";
          } else {
            static_assert(std::is_same_v<T, std::vector<ExprPtr>>);
            if (v.empty() && !typed_by_schema) return "list[" + p_ + "Expr]()";
            std::vector<std::string> parts;
            for (const auto& e : v) parts.push_back(typed_by_schema ? PrintExpr(e) : SelfDescribingExpr(e));
            return "[" + JoinTexts(parts) + "]";
          }
        },
        value);
  }

  // ---------------------------------------------------------------- types and enums

  std::string DType(DataType dtype) const { return p_ + dtype.name(); }

  // `pl.<Enum>.<name>`; MemorySpace goes by its DSL alias `pl.Mem`.
  std::string EnumPath(const std::string& type) const { return p_ + (type == "MemorySpace" ? "Mem" : type); }

  template <class E>
  std::string Enum(E value) const {
    return EnumPath(EnumInfo<E>::kName) + "." + ToString(value);
  }

  std::string EnumAttrText(const EnumAttr& attr) const {
    const std::string path = EnumPath(printer::ToIdentifier(attr.type));
    if (auto name = EnumValueName(attr.type, attr.value)) return path + "." + *name;
    return path + "(" + std::to_string(attr.value) + ")";
  }

  std::string PrintType(const TypePtr& type) {
    if (!type) return p_ + "Unknown";
    switch (type->kind()) {
      case NodeKind::kScalarType: return p_ + "Scalar[" + DType(static_cast<const ScalarType&>(*type).dtype) + "]";
      case NodeKind::kTensorType: return TensorTypeText(static_cast<const TensorType&>(*type), p_ + "Tensor[");
      case NodeKind::kDistributedTensorType:
        return TensorTypeText(static_cast<const TensorType&>(*type), "pld.DistributedTensor[");
      case NodeKind::kTileType: return TileTypeText(static_cast<const TileType&>(*type));
      case NodeKind::kTupleType: {
        const auto& tuple = static_cast<const TupleType&>(*type);
        if (tuple.fields.empty()) return p_ + "Tuple[()]";
        std::vector<std::string> fields;
        for (const auto& field : tuple.fields) fields.push_back(PrintType(field));
        return p_ + "Tuple[" + JoinTexts(fields) + "]";
      }
      case NodeKind::kArrayType: {
        const auto& array = static_cast<const ArrayType&>(*type);
        std::string text = p_ + "Array[" + PrintExpr(array.size);
        return text + ", " + DType(array.dtype) + "]";
      }
      case NodeKind::kPtrType: {
        const auto& ptr = static_cast<const PtrType&>(*type);
        if (!ptr.memory_space) return p_ + "Ptr";
        return p_ + "Ptr[" + Enum(*ptr.memory_space) + "]";
      }
      default: return p_ + "Unknown";
    }
  }

  std::string ExprListDisplay(const std::vector<ExprPtr>& exprs) { return "[" + ExprList(exprs) + "]"; }

  std::string TensorTypeText(const TensorType& tensor, const std::string& head) {
    std::string text = head + ExprListDisplay(tensor.shape);
    text += ", " + DType(tensor.dtype);
    if (tensor.view) {
      std::vector<std::string> fields;
      if (!tensor.view->strides.empty()) fields.push_back("stride=" + ExprListDisplay(tensor.view->strides));
      if (!tensor.view->valid_shape.empty()) {
        fields.push_back("valid_shape=" + ExprListDisplay(tensor.view->valid_shape));
      }
      if (tensor.view->pad != PadValue::Null) fields.push_back("pad=" + Enum(tensor.view->pad));
      fields.push_back("layout=" + Enum(tensor.layout));
      text += ", " + p_ + "TensorView(" + JoinTexts(fields) + ")";
    } else if (tensor.layout != TensorLayout::ND) {
      text += ", " + Enum(tensor.layout);
    }
    return text + "]";
  }

  std::string TileTypeText(const TileType& tile) {
    std::string text = p_ + "Tile[" + ExprListDisplay(tile.shape);
    text += ", " + DType(tile.dtype);
    if (tile.memref) text += ", " + MemRefText(*tile.memref);
    if (tile.memory_space) text += ", " + Enum(*tile.memory_space);
    std::vector<std::string> view;
    if (!tile.valid_shape.empty()) view.push_back("valid_shape=" + ExprListDisplay(tile.valid_shape));
    if (tile.blayout) view.push_back("blayout=" + Enum(*tile.blayout));
    if (tile.slayout) view.push_back("slayout=" + Enum(*tile.slayout));
    if (tile.fractal != 0) view.push_back("fractal=" + std::to_string(tile.fractal));
    if (tile.pad != PadValue::Null) view.push_back("pad=" + Enum(tile.pad));
    if (!view.empty()) text += ", " + p_ + "TileView(" + JoinTexts(view) + ")";
    return text + "]";
  }

  PrintOptions options_;
  std::string p_;  // the prefix with its dot: "pl."
  std::ostringstream out_;

  NameTable module_table_;  // module-level names, reserved in every function too
  std::string class_name_;
  std::unordered_map<std::string, std::string> function_names_;
  std::unordered_map<const Var*, std::string> module_names_;
  std::vector<VarPtr> dynamic_dims_;
  std::unordered_map<const Function*, std::unordered_set<const Var*>> bound_vars_;

  NameTable local_table_;
  std::unordered_map<const Var*, std::string> local_names_;
  const std::unordered_set<const Var*>* bound_ = nullptr;
};

}  // namespace

std::string PrintProgram(const ProgramPtr& program, const PrintOptions& options) {
  if (!program) ThrowValueError("PrintProgram got a null program");
  return Printer(options).ProgramText(*program);
}

std::string PrintFunction(const FunctionPtr& function, const PrintOptions& options) {
  if (!function) ThrowValueError("PrintFunction got a null function");
  return Printer(options).FunctionText(function);
}

std::string PrintNode(const NodePtr& node, const PrintOptions& options) { return Printer(options).NodeText(node); }

}  // namespace pypto::ir
