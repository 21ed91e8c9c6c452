// BreakContinueCheck and ReturnPosition: structured exits only.
#include "verifier_internal.h"

namespace pypto::ir::verifier {
namespace {

const char* ForKindSpelling(ForKind kind) {
  switch (kind) {
    case ForKind::Sequential: return "pl.range";
    case ForKind::Parallel: return "pl.parallel";
    case ForKind::Unroll: return "pl.unroll";
    case ForKind::Pipeline: return "pl.pipeline";
  }
  return "?";
}

class ControlFlowChecker : public IRVisitor {
 public:
  explicit ControlFlowChecker(Reporter& reporter) : reporter_(reporter) {}

  void Run(const FunctionPtr& function) {
    trailing_ = TrailingStmt(function->body);
    if (function->body) VisitStmt(function->body);
    CheckReturnPresent(*function);
  }

  void Visit_(const Ref<ForStmt>& stmt) override { VisitInside(*stmt); }
  void Visit_(const Ref<WhileStmt>& stmt) override { VisitInside(*stmt); }
  void Visit_(const Ref<ScopeStmt>& stmt) override { VisitInside(*stmt); }
  void Visit_(const Ref<BreakStmt>& stmt) override { CheckExit(*stmt, "break"); }
  void Visit_(const Ref<ContinueStmt>& stmt) override { CheckExit(*stmt, "continue"); }

  void Visit_(const Ref<ReturnStmt>& stmt) override {
    if (stmt.get() != trailing_) {
      reporter_.Error("ReturnPosition", "MISPLACED_RETURN", *stmt, stmt->span,
                      "a return may only be the last statement of " + reporter_.FunctionLabel() +
                          "; early returns are not supported: carry the value out of loops and ifs with "
                          "pl.yield_ and return it at the end");
    }
    VisitChildren(*stmt);
  }

 private:
  void VisitInside(const Stmt& stmt) {
    enclosing_.push_back(&stmt);
    VisitChildren(stmt);
    enclosing_.pop_back();
  }

  // The innermost loop or scope decides whether break/continue may leave it.
  void CheckExit(const Stmt& stmt, const std::string& keyword) {
    const char* rule = "BreakContinueCheck";
    const Stmt* inner = enclosing_.empty() ? nullptr : enclosing_.back();
    const auto* loop = As<ForStmt>(inner);
    if (As<WhileStmt>(inner) != nullptr || (loop != nullptr && loop->for_kind == ForKind::Sequential)) return;
    if (loop != nullptr) {
      reporter_.Error(rule, "BREAK_IN_NON_SEQUENTIAL_LOOP", stmt, stmt.span,
                      "`" + keyword + "` inside a " + ForKindSpelling(loop->for_kind) + " loop (at " +
                          loop->span.ToString() + "); " + keyword +
                          " is allowed only in pl.range and while loops, whose iterations run in order: "
                          "make the loop a pl.range, or guard the body with an if");
      return;
    }
    if (inner != nullptr && HasLoopOutside(inner)) {
      reporter_.Error(rule, "BREAK_ACROSS_SCOPE", stmt, stmt.span,
                      "`" + keyword + "` would leave the scope at " + inner->span.ToString() +
                          " that sits inside its loop; a scope runs once as a whole: move the loop into the scope, "
                          "or the " + keyword + " out of it");
      return;
    }
    reporter_.Error(rule, "BREAK_OUTSIDE_LOOP", stmt, stmt.span,
                    "`" + keyword + "` outside of any loop of " + reporter_.FunctionLabel() + "; " + keyword +
                        " must be inside a pl.range or while loop");
  }

  bool HasLoopOutside(const Stmt* scope) const {
    for (const Stmt* s : enclosing_) {
      if (s == scope) return false;
      if (As<ForStmt>(s) != nullptr || As<WhileStmt>(s) != nullptr) return true;
    }
    return false;
  }

  void CheckReturnPresent(const Function& function) {
    if (function.return_types.empty() || As<ReturnStmt>(trailing_) != nullptr) return;
    const Node& node = trailing_ ? static_cast<const Node&>(*trailing_) : static_cast<const Node&>(function);
    reporter_.Error("ReturnPosition", "MISSING_RETURN", node, node.span.known() ? node.span : function.span,
                    reporter_.FunctionLabel() + " declares " + std::to_string(function.return_types.size()) +
                        " return type(s) but its body does not end with a return; end it with `return` of one "
                        "value per declared type");
  }

  Reporter& reporter_;
  const Stmt* trailing_ = nullptr;
  std::vector<const Stmt*> enclosing_;
};

}  // namespace

void CheckControlFlow(const FunctionPtr& function, Reporter& reporter) { ControlFlowChecker(reporter).Run(function); }

}  // namespace pypto::ir::verifier
