// IR statements. Loops and ifs carry SSA state explicitly: a loop's state is
// its iter_args (each with an init value), the body's last statement yields
// their next values, and return_vars name the values after the loop.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/attrs.h"
#include "pypto/ir/enums.h"
#include "pypto/ir/expr.h"
#include "pypto/ir/node.h"

namespace pypto::ir {

class Stmt : public Node {
 public:
  static bool classof(NodeKind k) { return IsStmtKind(k); }

  // Comments printed above the statement; never compared.
  std::vector<std::string> leading_comments;

 protected:
  using Node::Node;
};
using StmtPtr = Ref<Stmt>;

class AssignStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kAssignStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  AssignStmt() : Stmt(kKind) {}
  static Ref<AssignStmt> Make(VarPtr var, ExprPtr value, Span span = Span());

  VarPtr var;
  ExprPtr value;

  template <class F>
  void ForEachField(F&& f) {
    f("var", var, FieldRole::kDef);
    f("value", value, FieldRole::kUsual);
  }
};

// An expression evaluated for its effect (a call whose result is unused).
class EvalStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kEvalStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  EvalStmt() : Stmt(kKind) {}
  static Ref<EvalStmt> Make(ExprPtr expr, Span span = Span());

  ExprPtr expr;

  template <class F>
  void ForEachField(F&& f) { f("expr", expr, FieldRole::kUsual); }
};

class SeqStmts : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kSeqStmts;
  static bool classof(NodeKind k) { return k == kKind; }
  SeqStmts() : Stmt(kKind) {}
  static Ref<SeqStmts> Make(std::vector<StmtPtr> stmts, Span span = Span());

  std::vector<StmtPtr> stmts;

  template <class F>
  void ForEachField(F&& f) { f("stmts", stmts, FieldRole::kUsual); }
};

class IfStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kIfStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  IfStmt() : Stmt(kKind) {}
  static Ref<IfStmt> Make(ExprPtr condition, StmtPtr then_body, StmtPtr else_body,
                          std::vector<VarPtr> return_vars = {}, Span span = Span());

  ExprPtr condition;
  StmtPtr then_body;
  StmtPtr else_body;                // may be null
  std::vector<VarPtr> return_vars;  // phis: each branch ends in a yield of this arity

  template <class F>
  void ForEachField(F&& f) {
    f("condition", condition, FieldRole::kUsual);
    f("then_body", then_body, FieldRole::kUsual);
    f("else_body", else_body, FieldRole::kUsual);
    f("return_vars", return_vars, FieldRole::kDef);
  }
};

class ForStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kForStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  ForStmt() : Stmt(kKind) {}
  static Ref<ForStmt> Make(VarPtr loop_var, ExprPtr start, ExprPtr stop, ExprPtr step,
                           std::vector<IterArgPtr> iter_args, StmtPtr body, std::vector<VarPtr> return_vars,
                           ForKind for_kind = ForKind::Sequential, Attrs attrs = {}, Span span = Span());

  VarPtr loop_var;
  ExprPtr start;
  ExprPtr stop;
  ExprPtr step;
  std::vector<IterArgPtr> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;
  ForKind for_kind = ForKind::Sequential;
  Attrs attrs;  // e.g. "stage" of pl.pipeline

  template <class F>
  void ForEachField(F&& f) {
    f("loop_var", loop_var, FieldRole::kDef);
    f("start", start, FieldRole::kUsual);
    f("stop", stop, FieldRole::kUsual);
    f("step", step, FieldRole::kUsual);
    f("iter_args", iter_args, FieldRole::kDef);
    f("body", body, FieldRole::kUsual);
    f("return_vars", return_vars, FieldRole::kDef);
    f("for_kind", for_kind, FieldRole::kUsual);
    f("attrs", attrs, FieldRole::kUsual);
  }
};

// `condition` is evaluated over the iter_args before each iteration.
class WhileStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kWhileStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  WhileStmt() : Stmt(kKind) {}
  static Ref<WhileStmt> Make(ExprPtr condition, std::vector<IterArgPtr> iter_args, StmtPtr body,
                             std::vector<VarPtr> return_vars, Span span = Span());

  ExprPtr condition;
  std::vector<IterArgPtr> iter_args;
  StmtPtr body;
  std::vector<VarPtr> return_vars;

  template <class F>
  void ForEachField(F&& f) {
    f("iter_args", iter_args, FieldRole::kDef);
    f("condition", condition, FieldRole::kUsual);
    f("body", body, FieldRole::kUsual);
    f("return_vars", return_vars, FieldRole::kDef);
  }
};

class YieldStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kYieldStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  YieldStmt() : Stmt(kKind) {}
  static Ref<YieldStmt> Make(std::vector<ExprPtr> values, Span span = Span());

  std::vector<ExprPtr> values;

  template <class F>
  void ForEachField(F&& f) { f("values", values, FieldRole::kUsual); }
};

class ReturnStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kReturnStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  ReturnStmt() : Stmt(kKind) {}
  static Ref<ReturnStmt> Make(std::vector<ExprPtr> values, Span span = Span());

  std::vector<ExprPtr> values;

  template <class F>
  void ForEachField(F&& f) { f("values", values, FieldRole::kUsual); }
};

class BreakStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kBreakStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  BreakStmt() : Stmt(kKind) {}
  static Ref<BreakStmt> Make(Span span = Span());

  template <class F>
  void ForEachField(F&&) {}
};

class ContinueStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kContinueStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  ContinueStmt() : Stmt(kKind) {}
  static Ref<ContinueStmt> Make(Span span = Span());

  template <class F>
  void ForEachField(F&&) {}
};

// A region: `with pl.at(...)`, `pl.spmd(n)`, `pl.cluster()` (placement) or
// `pl.manual_scope()` (Runtime: no derived task dependencies inside). Runs
// once; has no iter_args. Which fields matter depends on `scope_kind`:
// Hierarchy uses level/role, Spmd uses core_num/sync_start, InCore uses split.
// Remaining user options (deps, optimizations, ...) live in `attrs`; `deps`
// holds TASK_ID scalars or Arrays of them. `task_id` (`as tid`, may be null)
// names the submitted task; it is defined after the scope, not inside it.
class ScopeStmt : public Stmt {
 public:
  static constexpr NodeKind kKind = NodeKind::kScopeStmt;
  static bool classof(NodeKind k) { return k == kKind; }
  ScopeStmt() : Stmt(kKind) {}
  static Ref<ScopeStmt> Make(ScopeKind scope_kind, StmtPtr body, std::string name_hint = "", Span span = Span());

  ScopeKind scope_kind = ScopeKind::InCore;
  std::string name_hint;
  StmtPtr body;
  std::optional<Level> level;
  std::optional<Role> role;
  ExprPtr core_num;  // Spmd only
  bool sync_start = false;
  SplitMode split = SplitMode::None;
  Attrs attrs;
  VarPtr task_id;  // ScalarType(TASK_ID) or null

  template <class F>
  void ForEachField(F&& f) {
    f("scope_kind", scope_kind, FieldRole::kUsual);
    f("name_hint", name_hint, FieldRole::kUsual);
    f("body", body, FieldRole::kUsual);
    f("level", level, FieldRole::kUsual);
    f("role", role, FieldRole::kUsual);
    f("core_num", core_num, FieldRole::kUsual);
    f("sync_start", sync_start, FieldRole::kUsual);
    f("split", split, FieldRole::kUsual);
    f("attrs", attrs, FieldRole::kUsual);
    f("task_id", task_id, FieldRole::kDef);
  }
};

// Flattens nested SeqStmts; returns the single statement when there is one.
StmtPtr MakeSeq(std::vector<StmtPtr> stmts, Span span = Span());
// The statements of `body` as a list (a SeqStmts' children, or the one statement).
std::vector<StmtPtr> Flatten(const StmtPtr& body);

}  // namespace pypto::ir
