// TypeCheck: op calls re-deduce to their recorded type, calls of program
// functions match their callee, and statements get the types they need.
#include <exception>

#include "pypto/ops/registry.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"
#include "verifier_internal.h"

namespace pypto::ir::verifier {

// ---------------------------------------------------------------- type equality

namespace {

template <class T>
bool SameOrOpen(bool refinable, const std::optional<T>& expected, const std::optional<T>& actual) {
  return (refinable && !expected) || expected == actual;
}

// Equality of dimension expressions without binding.
bool SameDimExpr(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b || a->kind() != b->kind()) return false;
  if (auto ca = As<ConstInt>(a)) return ca->value == As<ConstInt>(b)->value;
  if (auto ba = As<BinaryExpr>(a)) {
    auto bb = As<BinaryExpr>(b);
    return ba->op == bb->op && SameDimExpr(ba->lhs, bb->lhs) && SameDimExpr(ba->rhs, bb->rhs);
  }
  if (auto ua = As<UnaryExpr>(a)) {
    auto ub = As<UnaryExpr>(b);
    return ua->op == ub->op && SameType(ua->type, ub->type) && SameDimExpr(ua->operand, ub->operand);
  }
  return false;
}

}  // namespace

TypeMatcher TypeMatcher::Refinable() {
  TypeMatcher m;
  m.refinable_ = true;
  return m;
}

bool TypeMatcher::Match(const TypePtr& expected, const TypePtr& actual) {
  if (expected == actual) return true;
  if (!expected || !actual || expected->kind() != actual->kind()) return false;
  if (auto e = As<ScalarType>(expected)) return e->dtype == As<ScalarType>(actual)->dtype;
  if (auto e = As<TensorType>(expected)) return MatchTensor(*e, *As<TensorType>(actual));
  if (auto e = As<TileType>(expected)) return MatchTile(*e, *As<TileType>(actual));
  if (auto e = As<TupleType>(expected)) {
    auto a = As<TupleType>(actual);
    if (e->fields.size() != a->fields.size()) return false;
    for (size_t i = 0; i < e->fields.size(); ++i) {
      if (!Match(e->fields[i], a->fields[i])) return false;
    }
    return true;
  }
  if (auto e = As<ArrayType>(expected)) {
    auto a = As<ArrayType>(actual);
    return e->dtype == a->dtype && MatchDim(e->size, a->size);
  }
  if (auto e = As<PtrType>(expected)) return e->memory_space == As<PtrType>(actual)->memory_space;
  return IsA<UnknownType>(expected);
}

bool TypeMatcher::MatchDims(const std::vector<ExprPtr>& expected, const std::vector<ExprPtr>& actual) {
  if (expected.size() != actual.size()) return false;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (!MatchDim(expected[i], actual[i])) return false;
  }
  return true;
}

bool TypeMatcher::MatchDim(const ExprPtr& expected, const ExprPtr& actual) {
  if (auto var = As<Var>(expected); var && bindable_.count(var.get()) && actual) {
    auto [it, inserted] = bindings_.emplace(var.get(), actual);
    return inserted || SameDimExpr(it->second, actual);
  }
  if (auto e = As<BinaryExpr>(expected)) {
    auto a = As<BinaryExpr>(actual);
    return a && e->op == a->op && MatchDim(e->lhs, a->lhs) && MatchDim(e->rhs, a->rhs);
  }
  return SameDimExpr(expected, actual);
}

bool TypeMatcher::MatchTensor(const TensorType& expected, const TensorType& actual) {
  if (!MatchDims(expected.shape, actual.shape) || expected.dtype != actual.dtype || expected.layout != actual.layout) {
    return false;
  }
  if (refinable_ && !expected.view) return true;
  if (!expected.view || !actual.view) return !expected.view && !actual.view;
  return MatchDims(expected.view->strides, actual.view->strides) &&
         MatchDims(expected.view->valid_shape, actual.view->valid_shape) && expected.view->pad == actual.view->pad;
}

bool TypeMatcher::MatchTile(const TileType& expected, const TileType& actual) {
  if (!MatchDims(expected.shape, actual.shape) || expected.dtype != actual.dtype) return false;
  bool valid_shape_open = refinable_ && expected.valid_shape.empty();
  bool fractal_open = refinable_ && expected.fractal == 0;
  bool pad_open = refinable_ && expected.pad == PadValue::Null;
  return SameOrOpen(refinable_, expected.memory_space, actual.memory_space) &&
         SameOrOpen(refinable_, expected.blayout, actual.blayout) &&
         SameOrOpen(refinable_, expected.slayout, actual.slayout) &&
         (fractal_open || expected.fractal == actual.fractal) && (pad_open || expected.pad == actual.pad) &&
         (valid_shape_open || MatchDims(expected.valid_shape, actual.valid_shape));
}

bool SameType(const TypePtr& a, const TypePtr& b) { return TypeMatcher().Match(a, b); }

bool CarriedTypeAccepts(const TypePtr& carried, const TypePtr& actual) {
  return TypeMatcher::Refinable().Match(carried, actual);
}

namespace {

class DimVarCollector : public IRVisitor {
 public:
  std::set<const Var*> vars;

  void VisitType(const TypePtr& type) override {
    if (type) VisitChildren(*type);
  }
  void Visit_(const Ref<Var>& var) override { vars.insert(var.get()); }
  void Visit_(const Ref<IterArg>& var) override { vars.insert(var.get()); }
};

}  // namespace

std::set<const Var*> DimVarsOf(const TypePtr& type) {
  DimVarCollector collector;
  collector.VisitType(type);
  return collector.vars;
}

// ---------------------------------------------------------------- TypeCheck

namespace {

constexpr const char* kRule = "TypeCheck";

std::string ReturnTypesToString(const std::vector<TypePtr>& types) {
  if (types.empty()) return "nothing";
  if (types.size() == 1) return TypeToString(types[0]);
  return TypeToString(TupleType::Make(types));
}

class TypeChecker : public StmtTrackingVisitor {
 public:
  TypeChecker(const Program* program, Reporter& reporter) : program_(program), reporter_(reporter) {}

  void Run(const FunctionPtr& function) {
    if (function->body) VisitStmt(function->body);
  }

  void Visit_(const Ref<Call>& call) override {
    if (call->is_function_call()) {
      CheckFunctionCall(*call);
    } else {
      CheckOpCall(*call);
    }
    VisitChildren(*call);
  }

  void Visit_(const Ref<AssignStmt>& stmt) override {
    if (stmt->var && stmt->value && !SameType(stmt->var->type, stmt->value->type)) {
      reporter_.Error(kRule, "ASSIGN_TYPE_MISMATCH", *stmt, stmt->span,
                      "'" + stmt->var->name_hint + "' is declared as " + TypeToString(stmt->var->type) +
                          " but is assigned a value of type " + TypeToString(stmt->value->type) +
                          "; declare the variable with the value's type, or convert the value");
    }
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<IfStmt>& stmt) override {
    CheckCondition(*stmt, stmt->condition, "if");
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<WhileStmt>& stmt) override {
    CheckCondition(*stmt, stmt->condition, "while");
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<ForStmt>& stmt) override {
    if (stmt->loop_var) CheckInteger(*stmt, stmt->loop_var, "loop variable '" + stmt->loop_var->name_hint + "'");
    CheckInteger(*stmt, stmt->start, "start bound");
    CheckInteger(*stmt, stmt->stop, "stop bound");
    CheckInteger(*stmt, stmt->step, "step");
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<ReturnStmt>& stmt) override {
    CheckReturn(*stmt);
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<ScopeStmt>& stmt) override {
    CheckTaskId(*stmt);
    CheckScopeDeps(*stmt);
    VisitChildren(*stmt);
  }

  void Visit_(const Ref<Submit>& submit) override {
    CheckSubmit(*submit);
    VisitChildren(*submit);
  }

 private:
  void CheckOpCall(const Call& call) {
    if (!call.op) {
      reporter_.Error(kRule, "UNKNOWN_OP", call, SpanOf(call),
                      "a call has no op; build op calls with OpRegistry::Create");
      return;
    }
    const std::string& name = call.op->name;
    const auto& registry = ops::OpRegistry::Global();
    const ops::OpDef* def = registry.Find(name);
    if (def == nullptr) {
      reporter_.Error(kRule, "UNKNOWN_OP", call, SpanOf(call),
                      "op '" + name + "' is not registered; check its spelling, or load the plugin that defines it");
      return;
    }
    TypePtr deduced;
    try {
      deduced = registry.DeduceType(call);
    } catch (const pypto::Error& e) {
      ReportDeductionFailure(call, e.message());
      return;
    } catch (const std::exception& e) {
      ReportDeductionFailure(call, e.what());
      return;
    }
    if (!def->has_type_deduce() || TypeMatcher::Refinable().Match(deduced, call.type)) return;
    reporter_.Error(kRule, "CALL_TYPE_MISMATCH", call, SpanOf(call),
                    "the call of '" + name + "' records type " + TypeToString(call.type) +
                        " but its arguments deduce " + TypeToString(deduced) +
                        "; a pass changed the call without updating its type: rebuild it with OpRegistry::Create");
  }

  void ReportDeductionFailure(const Call& call, const std::string& reason) {
    reporter_.Error(kRule, "DEDUCTION_FAILED", call, SpanOf(call),
                    "the call of '" + call.op->name + "' does not type-check: " + reason +
                        "; fix its arguments, or rebuild it with OpRegistry::Create");
  }

  void CheckFunctionCall(const Call& call) {
    if (program_ == nullptr) return;
    const std::string& name = call.callee_name();
    FunctionPtr callee = program_->Find(name);
    if (!callee) {
      reporter_.Error(kRule, "UNKNOWN_FUNCTION", call, SpanOf(call),
                      "calls '" + name + "', which is not a function of program '" + program_->name +
                          "'; add the function to the program or call one that exists");
      return;
    }
    if (call.args.size() != callee->params.size()) {
      reporter_.Error(kRule, "ARG_COUNT_MISMATCH", call, SpanOf(call),
                      "'" + name + "' takes " + std::to_string(callee->params.size()) + " argument(s) (" +
                          JoinMapped(callee->params, ", ", [](const VarPtr& p) { return p->name_hint; }) +
                          ") but this call passes " + std::to_string(call.args.size()) +
                          "; pass one argument per parameter");
      return;
    }
    std::set<const Var*> callee_dims;
    for (const auto& param : callee->params) callee_dims.merge(DimVarsOf(param->type));
    TypeMatcher matcher(std::move(callee_dims));
    for (size_t i = 0; i < call.args.size(); ++i) {
      const VarPtr& param = callee->params[i];
      const ExprPtr& arg = call.args[i];
      if (!arg || matcher.Match(param->type, arg->type)) continue;
      reporter_.Error(kRule, "ARG_TYPE_MISMATCH", call, SpanOf(call),
                      "argument " + std::to_string(i) + " of the call of '" + name + "' has type " +
                          TypeToString(arg->type) + " but parameter '" + param->name_hint + "' expects " +
                          TypeToString(param->type) + "; pass a value of the parameter's type");
    }
    if (ResultMatches(*callee, call.type, matcher)) return;
    reporter_.Error(kRule, "CALL_TYPE_MISMATCH", call, SpanOf(call),
                    "the call of '" + name + "' has type " + TypeToString(call.type) + " but '" + name + "' returns " +
                        ReturnTypesToString(callee->return_types) + "; give the call its callee's return type");
  }

  // One return type is the call's type; several are a tuple; none leaves the call untyped.
  static bool ResultMatches(const Function& callee, const TypePtr& type, TypeMatcher& matcher) {
    const auto& returns = callee.return_types;
    if (returns.empty()) {
      auto tuple = As<TupleType>(type);
      return IsA<UnknownType>(type) || (tuple && tuple->fields.empty());
    }
    if (returns.size() == 1) return matcher.Match(returns[0], type);
    return matcher.Match(TupleType::Make(returns), type);
  }

  void CheckReturn(const ReturnStmt& stmt) {
    const Function& function = reporter_.function();
    const auto& declared = function.return_types;
    if (stmt.values.size() != declared.size()) {
      reporter_.Error(kRule, "RETURN_COUNT_MISMATCH", stmt, stmt.span,
                      "returns " + std::to_string(stmt.values.size()) + " value(s) but " + reporter_.FunctionLabel() +
                          " declares " + std::to_string(declared.size()) + " return type(s) (" +
                          JoinMapped(declared, ", ", TypeToString) + "); return one value per declared type");
      return;
    }
    for (size_t i = 0; i < declared.size(); ++i) {
      const ExprPtr& value = stmt.values[i];
      if (!value || SameType(declared[i], value->type)) continue;
      reporter_.Error(kRule, "RETURN_TYPE_MISMATCH", stmt, stmt.span,
                      "return value " + std::to_string(i) + " has type " + TypeToString(value->type) + " but " +
                          reporter_.FunctionLabel() + " declares " + TypeToString(declared[i]) +
                          "; return a value of the declared type, or change the declaration");
    }
  }

  void CheckCondition(const Stmt& stmt, const ExprPtr& condition, const char* keyword) {
    if (!condition || IsScalarType(condition->type, DataType::BOOL)) return;
    reporter_.Error(kRule, "CONDITION_NOT_BOOL", stmt, stmt.span,
                    std::string("the ") + keyword + " condition has type " + TypeToString(condition->type) +
                        "; a condition must be Scalar[BOOL]: compare explicitly (e.g. `x != 0`)");
  }

  void CheckInteger(const ForStmt& stmt, const ExprPtr& value, const std::string& what) {
    if (!value) return;
    auto dtype = ScalarDType(value->type);
    if (dtype && dtype->is_int()) return;
    reporter_.Error(kRule, "LOOP_BOUND_NOT_INT", stmt, stmt.span,
                    "the for loop's " + what + " has type " + TypeToString(value->type) +
                        "; loop variables and bounds must be integer scalars: convert it with pl.cast(..., pl.INDEX)");
  }

  void CheckTaskId(const ScopeStmt& stmt) {
    if (!stmt.task_id) return;
    const std::string name = "'" + stmt.task_id->name_hint + "'";
    if (stmt.scope_kind != ScopeKind::InCore && stmt.scope_kind != ScopeKind::Spmd) {
      reporter_.Error(kRule, "TASK_ID_ON_NON_TASK_SCOPE", stmt, stmt.span,
                      std::string("the ") + ToString(stmt.scope_kind) + " scope binds task id " + name +
                          ", but only an InCore (pl.at at CORE_GROUP) or Spmd scope is one task; remove the task id");
    }
    if (IsScalarType(stmt.task_id->type, DataType::TASK_ID)) return;
    reporter_.Error(kRule, "TASK_ID_TYPE_MISMATCH", stmt, stmt.span,
                    "task id " + name + " has type " + TypeToString(stmt.task_id->type) +
                        "; a scope's task id must be Scalar[TASK_ID]");
  }

  // deps= entries name tasks: a TaskId scalar, or an Array of them.
  void CheckScopeDeps(const ScopeStmt& stmt) {
    const AttrValue* deps = stmt.attrs.Find("deps");
    if (deps == nullptr) return;
    if (const auto* list = std::get_if<std::vector<ExprPtr>>(deps)) return CheckDepEntries(stmt, stmt.span, *list);
    if (const auto* single = std::get_if<ExprPtr>(deps)) return CheckDepEntries(stmt, stmt.span, {*single});
    reporter_.Error(kRule, "DEPS_TYPE_MISMATCH", stmt, stmt.span,
                    std::string("deps= must be a list of task ids (Scalar[TASK_ID] values or Arrays of TASK_ID), "
                                "got ") + AttrValueKindName(*deps) + "; write deps=[tid, ...]");
  }

  void CheckDepEntries(const Node& node, const Span& span, const std::vector<ExprPtr>& entries) {
    for (size_t i = 0; i < entries.size(); ++i) {
      const ExprPtr& entry = entries[i];
      if (!entry || IsTaskIdOrArray(entry->type)) continue;
      reporter_.Error(kRule, "DEPS_TYPE_MISMATCH", node, span,
                      "deps entry " + std::to_string(i) + " has type " + TypeToString(entry->type) +
                          "; deps= takes task ids: Scalar[TASK_ID] values (`as tid`) or Arrays of TASK_ID");
    }
  }

  // A submit launches a program function; its value is the call's results and the task id.
  void CheckSubmit(const Submit& submit) {
    auto call = submit.kernel_call();
    if (!call || !call->is_function_call()) {
      reporter_.Error(kRule, "SUBMIT_NOT_A_FUNCTION_CALL", submit, SpanOf(submit),
                      std::string("a submit must launch a function of the program, but it wraps ") +
                          (call ? "a call of op '" + call->op->name + "'" : std::string("a ") +
                                                                                  submit.call->type_name()) +
                          "; write pl.submit(self.kernel, args...)");
      return;
    }
    CheckDepEntries(submit, SpanOf(submit), submit.deps);
    TypePtr expected = SubmitType(call->type);
    if (SameType(expected, submit.type)) return;
    reporter_.Error(kRule, "SUBMIT_TYPE_MISMATCH", submit, SpanOf(submit),
                    "the submit of '" + call->callee_name() + "' has type " + TypeToString(submit.type) +
                        " but its call returns " + TypeToString(call->type) + ", so it must be " +
                        TypeToString(expected) + "; rebuild the submit with Submit::Make after changing its call");
  }

  static bool IsTaskIdOrArray(const TypePtr& type) {
    if (IsScalarType(type, DataType::TASK_ID)) return true;
    const auto array = As<ArrayType>(type);
    return array && array->dtype == DataType::TASK_ID;
  }

  const Program* program_;
  Reporter& reporter_;
};

}  // namespace

void CheckTypes(const FunctionPtr& function, const Program* program, Reporter& reporter) {
  TypeChecker(program, reporter).Run(function);
}

}  // namespace pypto::ir::verifier
