#include "simplify.h"

#include <cmath>
#include <memory>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "fold.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/structural.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::BinaryExpr;
using ir::BinaryOp;
using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::UnaryExpr;
using ir::UnaryOp;
using ir::VarPtr;

namespace {

// ------------------------------------------------------------------ side effects

// Calls of functions and of unknown ops may do anything. Ops that write an
// argument (with this call's keywords), return an argument's storage, or
// synchronize are kept as well.
bool CallHasEffects(const ir::Call& call) {
  if (call.is_function_call()) return true;
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
  if (def == nullptr) return true;
  for (size_t i = 0; i < call.args.size(); ++i) {
    if (def->arg_effect(static_cast<int>(i), call.kwargs) != ops::ArgEffect::kRead) return true;
  }
  if (def->output_reuses_input()) return true;
  switch (def->category()) {
    case ops::OpCategory::kSystemOp:
    case ops::OpCategory::kSyncOp:
    case ops::OpCategory::kCrossCoreOp:
    case ops::OpCategory::kCommOp: return true;
    default: return false;
  }
}

class EffectFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  bool found = false;

  void Visit_(const Ref<ir::Call>& call) override {
    if (CallHasEffects(*call)) {
      found = true;
      return;
    }
    IRVisitor::Visit_(call);
  }
};

// Evaluating `e` can be skipped or repeated without changing the program.
bool IsPure(const ExprPtr& e) {
  EffectFinder finder;
  finder.VisitExpr(e);
  return !finder.found;
}

// ------------------------------------------------------------------ algebraic identities

bool IsIntLiteral(const ExprPtr& e, int64_t value) {
  auto c = As<ir::ConstInt>(e);
  return c && c->value == value;
}

// +0.0 only: x - (-0.0) is x + 0.0, which turns -0.0 into +0.0.
bool IsNumber(const ExprPtr& e, int64_t value) {
  if (IsIntLiteral(e, value)) return true;
  auto c = As<ir::ConstFloat>(e);
  return c && c->value == static_cast<double>(value) && !std::signbit(c->value);
}

std::optional<bool> BoolLiteral(const ExprPtr& e) {
  if (auto c = As<ir::ConstBool>(e)) return c->value;
  return std::nullopt;
}

bool HasIntegerType(const ExprPtr& e) {
  auto dtype = ir::ScalarDType(e->type);
  return dtype && dtype->is_int();
}

// `x` when replacing the whole expression by it keeps the expression's dtype.
ExprPtr IfSameDType(const ExprPtr& x, DataType dtype) {
  return ir::ScalarDType(x->type) == dtype ? x : nullptr;
}

ExprPtr SimplifyAnd(const BinaryExpr& e) {
  for (auto [literal, other] : {std::pair{e.rhs, e.lhs}, std::pair{e.lhs, e.rhs}}) {
    auto value = BoolLiteral(literal);
    if (!value) continue;
    if (*value) return IfSameDType(other, DataType::BOOL);
    return IsPure(other) ? ir::ConstBool::Make(false, e.span) : nullptr;
  }
  return nullptr;
}

ExprPtr SimplifyOr(const BinaryExpr& e) {
  for (auto [literal, other] : {std::pair{e.rhs, e.lhs}, std::pair{e.lhs, e.rhs}}) {
    auto value = BoolLiteral(literal);
    if (!value) continue;
    if (!*value) return IfSameDType(other, DataType::BOOL);
    return IsPure(other) ? ir::ConstBool::Make(true, e.span) : nullptr;
  }
  return nullptr;
}

// Both operands compute the same value: the same expression, built once or twice.
bool SameValue(const ExprPtr& a, const ExprPtr& b) { return a == b || ir::StructuralEqual(a, b); }

// Comparing an integer expression with itself; floats are excluded because NaN != NaN.
ExprPtr SimplifySelfComparison(const BinaryExpr& e) {
  if (!HasIntegerType(e.lhs) || !SameValue(e.lhs, e.rhs) || !IsPure(e.lhs)) return nullptr;
  const bool holds = e.op == BinaryOp::Eq || e.op == BinaryOp::Le || e.op == BinaryOp::Ge;
  return ir::ConstBool::Make(holds, e.span);
}

// Identities whose result has the expression's dtype. Additive identities are
// integer-only (x + 0.0 is not x for x = -0.0); x * 0 -> 0 is integer-only
// (NaN * 0 is NaN) and needs x free of side effects.
ExprPtr SimplifyBinaryIdentity(const BinaryExpr& e) {
  const DataType dtype = e.dtype();
  const bool integral = dtype.is_int();
  const ExprPtr& x = e.lhs;
  const ExprPtr& y = e.rhs;
  auto zero = [&] { return ir::ConstInt::Make(0, dtype, e.span); };
  switch (e.op) {
    case BinaryOp::Add:
      if (!integral) return nullptr;
      if (IsIntLiteral(y, 0)) return IfSameDType(x, dtype);
      if (IsIntLiteral(x, 0)) return IfSameDType(y, dtype);
      return nullptr;
    case BinaryOp::Sub:
      if (IsNumber(y, 0)) return IfSameDType(x, dtype);
      if (integral && SameValue(x, y) && IsPure(x)) return zero();
      return nullptr;
    case BinaryOp::Mul:
      if (IsNumber(y, 1)) return IfSameDType(x, dtype);
      if (IsNumber(x, 1)) return IfSameDType(y, dtype);
      if (integral && IsIntLiteral(y, 0) && IsPure(x)) return zero();
      if (integral && IsIntLiteral(x, 0) && IsPure(y)) return zero();
      return nullptr;
    case BinaryOp::FloorDiv:
      if (integral && IsIntLiteral(y, 1)) return IfSameDType(x, dtype);
      return nullptr;
    case BinaryOp::FloorMod:
      if (integral && IsIntLiteral(y, 1) && IsPure(x)) return zero();
      return nullptr;
    case BinaryOp::FloatDiv:
      if (IsNumber(y, 1)) return IfSameDType(x, dtype);
      return nullptr;
    case BinaryOp::Eq:
    case BinaryOp::Ne:
    case BinaryOp::Lt:
    case BinaryOp::Le:
    case BinaryOp::Gt:
    case BinaryOp::Ge: return SimplifySelfComparison(e);
    case BinaryOp::And: return SimplifyAnd(e);
    case BinaryOp::Or: return SimplifyOr(e);
    default: return nullptr;
  }
}

ExprPtr SimplifyUnaryIdentity(const UnaryExpr& e) {
  if (e.op == UnaryOp::Cast) return IfSameDType(e.operand, e.dtype());
  auto inner = As<UnaryExpr>(e.operand);
  if (!inner || inner->op != e.op) return nullptr;
  switch (e.op) {
    case UnaryOp::Not: return IfSameDType(inner->operand, DataType::BOOL);
    case UnaryOp::Neg:
    case UnaryOp::BitNot: return inner->operand;
    default: return nullptr;
  }
}

// ------------------------------------------------------------------ statement helpers

// Appends `stmt` to `out`, splicing the statements of a SeqStmts.
void AppendFlattened(std::vector<StmtPtr>& out, const StmtPtr& stmt) {
  if (!stmt) return;
  if (auto seq = As<ir::SeqStmts>(stmt)) {
    out.insert(out.end(), seq->stmts.begin(), seq->stmts.end());
    return;
  }
  out.push_back(stmt);
}

bool IsEmpty(const StmtPtr& stmt) { return !stmt || ir::Flatten(stmt).empty(); }

StmtPtr EmptySeq(const Span& span) { return ir::SeqStmts::Make({}, span); }

std::string Count(size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

[[noreturn]] void ThrowArityMismatch(const char* node, size_t defined, size_t given, const char* what,
                                     const Span& span) {
  throw Error(ErrorKind::kVerification,
              std::string("Simplify: this ") + node + " defines " + Count(defined, "return var") + " but " + what +
                  " " + Count(given, "value") + "; every return var needs exactly one value",
              span);
}

// The loop provably runs zero times.
bool RunsZeroTimes(const ir::ForStmt& loop) {
  auto start = ir::AsConstInt(loop.start);
  auto stop = ir::AsConstInt(loop.stop);
  auto step = ir::AsConstInt(loop.step);
  if (!start || !stop || !step || *step == 0) return false;
  return *step > 0 ? *start >= *stop : *start <= *stop;
}

// `rv_i = init_i` for a loop that runs zero times.
template <class Loop>
StmtPtr AssignInitialValues(const Loop& loop, const char* node) {
  if (loop.iter_args.size() != loop.return_vars.size()) {
    ThrowArityMismatch(node, loop.return_vars.size(), loop.iter_args.size(), "carries", loop.span);
  }
  std::vector<StmtPtr> stmts;
  for (size_t i = 0; i < loop.iter_args.size(); ++i) {
    stmts.push_back(ir::AssignStmt::Make(loop.return_vars[i], loop.iter_args[i]->init_value, loop.span));
  }
  return ir::SeqStmts::Make(std::move(stmts), loop.span);
}

// The statements of the branch an if takes, its trailing yield turned into
// assignments of the if's return vars.
StmtPtr SpliceBranch(const ir::IfStmt& s, const StmtPtr& branch) {
  std::vector<StmtPtr> stmts = ir::Flatten(branch);
  Ref<ir::YieldStmt> yield;
  if (!stmts.empty()) yield = As<ir::YieldStmt>(stmts.back());
  if (yield) stmts.pop_back();
  const size_t yielded = yield ? yield->values.size() : 0;
  if (yielded != s.return_vars.size()) {
    ThrowArityMismatch("if", s.return_vars.size(), yielded, "its branch yields", s.span);
  }
  for (size_t i = 0; i < yielded; ++i) {
    stmts.push_back(ir::AssignStmt::Make(s.return_vars[i], yield->values[i], yield->span));
  }
  return ir::SeqStmts::Make(std::move(stmts), s.span);
}

// What uses of `var = value` can read instead of `var`: the literal value
// (integer literals take the variable's integer dtype when the value fits),
// or the variable it copies when both have one type (a copy of a tensor or a
// tile is an alias, not a data copy). nullptr otherwise.
ExprPtr ReplacementForVar(const VarPtr& var, const ExprPtr& value) {
  if (ir::IsA<ir::Var>(value)) return ir::StructuralEqual(var->type, value->type) ? value : nullptr;
  auto var_dtype = ir::ScalarDType(var->type);
  auto value_dtype = ir::ScalarDType(value->type);
  if (!var_dtype || !value_dtype) return nullptr;
  if (!simplify::IsLiteral(value)) return nullptr;
  if (*var_dtype == *value_dtype) return value;
  if (var_dtype->is_int() && value_dtype->is_int()) return simplify::ConvertLiteral(value, *var_dtype, value->span);
  return nullptr;
}

// ------------------------------------------------------------------ folding

// One forward sweep: folds expressions, applies identities, replaces variables
// bound to literals or copied from other scalars, and resolves ifs and loops
// decided by literals. In SSA the definition of `x = value` dominates every
// use of x, so reading `value` there is equivalent.
class ConstantFolder : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  ExprPtr Mutate_(const Ref<ir::Var>& node) override {
    auto it = replacements_.find(node.get());
    if (it != replacements_.end()) return it->second;
    return IRMutator::Mutate_(node);
  }

  ExprPtr Mutate_(const Ref<BinaryExpr>& node) override {
    auto e = MutateChildren(node);
    if (auto folded = simplify::FoldBinary(e->op, e->lhs, e->rhs, e->dtype(), e->span)) return folded;
    if (auto simpler = SimplifyBinaryIdentity(*e)) return simpler;
    return e;
  }

  ExprPtr Mutate_(const Ref<UnaryExpr>& node) override {
    auto e = MutateChildren(node);
    if (auto folded = simplify::FoldUnary(e->op, e->operand, e->dtype(), e->span)) return folded;
    if (auto simpler = SimplifyUnaryIdentity(*e)) return simpler;
    return e;
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto s = MutateChildren(node);
    if (auto replacement = ReplacementForVar(s->var, s->value)) replacements_[s->var.get()] = replacement;
    return s;
  }

  StmtPtr Mutate_(const Ref<ir::IfStmt>& node) override {
    auto s = MutateChildren(node);
    auto condition = As<ir::ConstBool>(s->condition);
    if (!condition) return s;
    return SpliceBranch(*s, condition->value ? s->then_body : s->else_body);
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override {
    auto s = MutateChildren(node);
    return RunsZeroTimes(*s) ? AssignInitialValues(*s, "for") : s;
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& node) override {
    auto s = MutateChildren(node);
    auto condition = As<ir::ConstBool>(s->condition);
    return condition && !condition->value ? AssignInitialValues(*s, "while") : s;
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : node->stmts) {
      StmtPtr updated = VisitStmt(child);
      changed |= updated != child || ir::IsA<ir::SeqStmts>(updated);
      AppendFlattened(stmts, updated);
    }
    if (!changed) return node;
    auto copy = std::make_shared<ir::SeqStmts>(*node);
    copy->stmts = std::move(stmts);
    return copy;
  }

 private:
  std::unordered_map<const ir::Var*, ExprPtr> replacements_;
};

// ------------------------------------------------------------------ dead code

// Records the variables a statement uses, including those in the types of
// the variables it defines (dims may name variables). Statements nested in it
// are left to the caller.
class UseCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  explicit UseCollector(std::unordered_set<const ir::Var*>& used) : used_(used) {}

  void CollectOwnUses(const StmtPtr& stmt) {
    top_ = stmt.get();
    VisitStmt(stmt);
  }

  void VisitStmt(const StmtPtr& stmt) override {
    if (stmt.get() == top_) IRVisitor::VisitStmt(stmt);
  }
  void VisitVarDef(const VarPtr& var) override {
    IRVisitor::VisitVarDef(var);
    VisitType(var->type);
  }
  void VisitType(const ir::TypePtr& type) override {
    if (type) VisitChildren(*type);
  }
  void Visit_(const Ref<ir::Var>& var) override { used_.insert(var.get()); }
  void Visit_(const Ref<ir::IterArg>& var) override { used_.insert(var.get()); }
  void Visit_(const Ref<ir::MemRef>& var) override {
    used_.insert(var.get());
    VisitChildren(*var);
  }

 private:
  std::unordered_set<const ir::Var*>& used_;
  const ir::Stmt* top_ = nullptr;
};

// Removes assignments of unused variables whose value is pure, and ifs and
// loops left with nothing to do. Statements are visited last to first: in SSA
// every use of a variable follows its definition, so by the time a definition
// is reached all of its live uses have been seen. Returns nullptr for a
// statement that is removed entirely.
class DeadCodeSweeper {
 public:
  StmtPtr Sweep(const StmtPtr& stmt) {
    switch (stmt->kind()) {
      case ir::NodeKind::kSeqStmts: return SweepSeq(std::static_pointer_cast<const ir::SeqStmts>(stmt));
      case ir::NodeKind::kAssignStmt: return SweepAssign(std::static_pointer_cast<const ir::AssignStmt>(stmt));
      case ir::NodeKind::kIfStmt: return SweepIf(std::static_pointer_cast<const ir::IfStmt>(stmt));
      case ir::NodeKind::kForStmt: return SweepFor(std::static_pointer_cast<const ir::ForStmt>(stmt));
      case ir::NodeKind::kWhileStmt: return SweepBody(std::static_pointer_cast<const ir::WhileStmt>(stmt));
      case ir::NodeKind::kScopeStmt: return SweepBody(std::static_pointer_cast<const ir::ScopeStmt>(stmt));
      default: Collect(stmt); return stmt;
    }
  }

 private:
  void Collect(const StmtPtr& stmt) { UseCollector(used_).CollectOwnUses(stmt); }

  StmtPtr SweepSeq(const Ref<ir::SeqStmts>& seq) {
    std::vector<StmtPtr> reversed;
    bool changed = false;
    for (auto it = seq->stmts.rbegin(); it != seq->stmts.rend(); ++it) {
      StmtPtr kept = Sweep(*it);
      changed |= kept != *it || ir::IsA<ir::SeqStmts>(kept);
      std::vector<StmtPtr> flat;
      AppendFlattened(flat, kept);
      reversed.insert(reversed.end(), flat.rbegin(), flat.rend());
    }
    if (!changed) return seq;
    if (reversed.empty()) return nullptr;
    auto copy = std::make_shared<ir::SeqStmts>(*seq);
    copy->stmts.assign(reversed.rbegin(), reversed.rend());
    return copy;
  }

  StmtPtr SweepAssign(const Ref<ir::AssignStmt>& assign) {
    if (!used_.count(assign->var.get()) && IsPure(assign->value)) return nullptr;
    Collect(assign);
    return assign;
  }

  StmtPtr SweepIf(const Ref<ir::IfStmt>& s) {
    StmtPtr then_body = Sweep(s->then_body);
    StmtPtr else_body = s->else_body ? Sweep(s->else_body) : nullptr;
    if (s->return_vars.empty() && IsEmpty(then_body) && IsEmpty(else_body) && IsPure(s->condition)) return nullptr;
    Collect(s);
    if (then_body == s->then_body && else_body == s->else_body) return s;
    auto copy = std::make_shared<ir::IfStmt>(*s);
    copy->then_body = then_body ? then_body : EmptySeq(s->span);
    copy->else_body = IsEmpty(else_body) ? nullptr : else_body;
    return copy;
  }

  StmtPtr SweepFor(const Ref<ir::ForStmt>& loop) {
    StmtPtr body = Sweep(loop->body);
    if (loop->iter_args.empty() && loop->return_vars.empty() && IsEmpty(body) && IsPure(loop->start) &&
        IsPure(loop->stop) && IsPure(loop->step)) {
      return nullptr;
    }
    Collect(loop);
    return WithBody(loop, body);
  }

  // While loops (which may never end) and scopes are kept even when empty.
  template <class T>
  StmtPtr SweepBody(const Ref<T>& s) {
    StmtPtr body = Sweep(s->body);
    Collect(s);
    return WithBody(s, body);
  }

  template <class T>
  StmtPtr WithBody(const Ref<T>& s, const StmtPtr& body) {
    if (body == s->body) return s;
    auto copy = std::make_shared<T>(*s);
    copy->body = body ? body : EmptySeq(s->span);
    return copy;
  }

  std::unordered_set<const ir::Var*> used_;
};

StmtPtr RemoveDeadCode(const StmtPtr& body) {
  StmtPtr swept = DeadCodeSweeper().Sweep(body);
  return swept ? swept : EmptySeq(body->span);
}

// ------------------------------------------------------------------ options

template <class T>
T ReadOption(const pass::PassOptions& options, const std::string& name, const char* kind, T current) {
  const ir::AttrValue* value = options.Find(name);
  if (value == nullptr) return current;
  if (const T* typed = std::get_if<T>(value)) return *typed;
  throw Error(ErrorKind::kPipeline, std::string("Simplify option '") + name + "' must be " + kind + ", got " +
                                        ir::AttrValueKindName(*value));
}

}  // namespace

std::vector<pass::PassOptionSpec> SimplifyPass::option_specs() const {
  using Kind = pass::PassOptionSpec::Kind;
  return {
      {Kind::kBool, "fold_constants", true,
       "fold literal expressions, apply algebraic identities, propagate literals and resolve ifs and loops they "
       "decide"},
      {Kind::kBool, "remove_dead_code", true,
       "remove assignments of unused variables whose value has no side effect, and empty ifs and loops"},
      {Kind::kInt, "max_iterations", int64_t{8},
       "rounds of folding and dead code removal before giving up on a fixpoint"},
  };
}

void SimplifyPass::Configure(const pass::PassOptions& options) {
  fold_constants_ = ReadOption(options, "fold_constants", "a bool", fold_constants_);
  remove_dead_code_ = ReadOption(options, "remove_dead_code", "a bool", remove_dead_code_);
  max_iterations_ = ReadOption(options, "max_iterations", "an int", max_iterations_);
  if (max_iterations_ < 1) {
    throw Error(ErrorKind::kPipeline, "Simplify option 'max_iterations' must be at least 1, got " +
                                          std::to_string(max_iterations_));
  }
}

ir::ProgramPtr SimplifyPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [this](const ir::FunctionPtr& f) { return SimplifyFunction(f); });
}

ir::FunctionPtr SimplifyPass::SimplifyFunction(const ir::FunctionPtr& function) const {
  if (!function->body) return function;
  StmtPtr body = function->body;
  for (int64_t round = 0; round < max_iterations_; ++round) {
    StmtPtr next = body;
    if (fold_constants_) next = ConstantFolder().VisitStmt(next);
    if (remove_dead_code_) next = RemoveDeadCode(next);
    if (next == body) break;
    body = next;
  }
  if (body == function->body) return function;
  auto copy = std::make_shared<ir::Function>(*function);
  copy->body = body;
  return copy;
}

}  // namespace pypto::passes
