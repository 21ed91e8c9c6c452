#include "flatten_call_expr.h"

#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"

namespace pypto::passes {

using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

// Every variable name a function mentions, so that temporaries never print
// like an existing variable.
class NameCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::unordered_set<std::string> names;

  void VisitVarDef(const VarPtr& var) override {
    names.insert(var->name_hint);
    IRVisitor::VisitVarDef(var);
  }
  void Visit_(const Ref<ir::Var>& var) override {
    names.insert(var->name_hint);
    IRVisitor::Visit_(var);
  }
};

// Rewrites one function. Each statement other than a SeqStmts gets a frame
// that collects the temporaries its expressions need; the statement is then
// replaced by those assignments followed by itself. Nested statement bodies
// open their own frames, so temporaries land in the innermost statement list.
class CallFlattener : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit CallFlattener(std::unordered_set<std::string> taken) : taken_(std::move(taken)) {}

  StmtPtr VisitStmt(const StmtPtr& stmt) override {
    if (auto seq = ir::As<ir::SeqStmts>(stmt)) return FlattenSeq(seq);
    frames_.emplace_back();
    StmtPtr rewritten = IRMutator::VisitStmt(stmt);
    std::vector<StmtPtr> stmts = std::move(frames_.back());
    frames_.pop_back();
    if (stmts.empty()) return rewritten;
    stmts.push_back(rewritten);
    return ir::MakeSeq(std::move(stmts), stmt->span);
  }

  ExprPtr VisitExpr(const ExprPtr& expr) override {
    // A while condition runs before every iteration; a temporary bound before
    // the loop would be evaluated once, so the condition keeps its calls.
    if (expr.get() != while_condition_) return IRMutator::VisitExpr(expr);
    while_condition_ = nullptr;
    bool saved = hoisting_;
    hoisting_ = false;
    ExprPtr rewritten = IRMutator::VisitExpr(expr);
    hoisting_ = saved;
    return rewritten;
  }

  // The value of `x = call(...)` and the call of `EvalStmt(call)` stay in
  // place, and so does the kernel call a submit launches.
  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    top_level_call_ = TopLevelCall(node->value);
    return IRMutator::Mutate_(node);
  }
  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    top_level_call_ = TopLevelCall(node->expr);
    return IRMutator::Mutate_(node);
  }
  StmtPtr Mutate_(const Ref<ir::WhileStmt>& node) override {
    while_condition_ = node->condition.get();
    return IRMutator::Mutate_(node);
  }

  // Arguments first, left to right, then the call itself: the temporaries
  // follow evaluation order.
  ExprPtr Mutate_(const Ref<ir::Call>& call) override {
    bool top_level = call.get() == top_level_call_;
    top_level_call_ = nullptr;
    ExprPtr rebuilt = IRMutator::Mutate_(call);
    if (top_level || !hoisting_ || frames_.empty()) return rebuilt;
    auto temp = ir::Var::Make(FreshName(), rebuilt->type, call->span);
    frames_.back().push_back(ir::AssignStmt::Make(temp, rebuilt, call->span));
    return temp;
  }

 private:
  static const ir::Expr* TopLevelCall(const ExprPtr& value) {
    if (auto submit = ir::As<ir::Submit>(value)) return submit->call.get();
    return ir::As<ir::Call>(value) ? value.get() : nullptr;
  }

  StmtPtr FlattenSeq(const Ref<ir::SeqStmts>& seq) {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : seq->stmts) {
      StmtPtr rewritten = VisitStmt(child);
      changed |= rewritten != child;
      stmts.push_back(rewritten);
    }
    if (!changed) return seq;
    // A statement that gained temporaries comes back as a SeqStmts; its
    // statements join this list instead of nesting.
    auto rebuilt = std::make_shared<ir::SeqStmts>(*seq);
    rebuilt->stmts.clear();
    for (const auto& s : stmts) {
      auto inner = ir::As<ir::SeqStmts>(s);
      if (!inner) {
        rebuilt->stmts.push_back(s);
        continue;
      }
      rebuilt->stmts.insert(rebuilt->stmts.end(), inner->stmts.begin(), inner->stmts.end());
    }
    return rebuilt;
  }

  std::string FreshName() {
    while (true) {
      std::string name = "__tmp_v" + std::to_string(next_temp_++);
      if (taken_.insert(name).second) return name;
    }
  }

  std::unordered_set<std::string> taken_;
  int next_temp_ = 0;
  std::vector<std::vector<StmtPtr>> frames_;
  const ir::Expr* top_level_call_ = nullptr;
  const ir::Expr* while_condition_ = nullptr;
  bool hoisting_ = true;
};

}  // namespace

ir::ProgramPtr FlattenCallExpr(const ir::ProgramPtr& program) {
  std::vector<ir::FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    NameCollector names;
    names.VisitFunction(function);
    CallFlattener flattener(std::move(names.names));
    functions.push_back(flattener.VisitFunction(function));
    changed |= functions.back() != function;
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

ir::ProgramPtr FlattenCallExprPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return FlattenCallExpr(program);
}

}  // namespace pypto::passes
