// OpPlacement: ops restricted to InCore code appear only there, and ops
// restricted to orchestration code never do.
#include "pypto/ops/registry.h"
#include "verifier_internal.h"

namespace pypto::ir::verifier {
namespace {

constexpr const char* kRule = "OpPlacement";

bool IsInCoreFunction(FunctionType type) {
  return type == FunctionType::InCore || type == FunctionType::AIC || type == FunctionType::AIV ||
         type == FunctionType::Group;
}

class PlacementChecker : public StmtTrackingVisitor {
 public:
  explicit PlacementChecker(Reporter& reporter)
      : reporter_(reporter), in_incore_function_(IsInCoreFunction(reporter.function().func_type)) {}

  void Run(const FunctionPtr& function) {
    if (function->body) VisitStmt(function->body);
  }

  void Visit_(const Ref<ScopeStmt>& scope) override {
    bool incore = scope->scope_kind == ScopeKind::InCore;
    if (incore) incore_scopes_.push_back(scope.get());
    VisitChildren(*scope);
    if (incore) incore_scopes_.pop_back();
  }

  void Visit_(const Ref<Call>& call) override {
    if (call->op && !call->is_function_call()) CheckOp(*call);
    VisitChildren(*call);
  }

 private:
  bool InInCoreCode() const { return in_incore_function_ || !incore_scopes_.empty(); }

  // Where the call is, for messages: "in InCore function 'k'", "inside the InCore scope at f.py:3:5 ...".
  std::string Location() const {
    const Function& function = reporter_.function();
    if (!incore_scopes_.empty()) {
      return "inside the InCore scope at " + incore_scopes_.back()->span.ToString() + " of " +
             reporter_.FunctionLabel();
    }
    return std::string("in ") + ToString(function.func_type) + " " + reporter_.FunctionLabel();
  }

  void CheckOp(const Call& call) {
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
    if (def == nullptr) return;
    const std::string op = "op '" + call.op->name + "'";
    switch (def->placement()) {
      case ops::Placement::kAnywhere: return;
      case ops::Placement::kInCoreOnly:
        if (InInCoreCode()) return;
        reporter_.Error(kRule, "INCORE_ONLY_OP", call, SpanOf(call),
                        op + " may only be called in InCore code, but this call is " + Location() +
                            " outside any InCore scope; move it into a `with pl.at(level=pl.Level.CORE_GROUP):` "
                            "block, or into an InCore function");
        return;
      case ops::Placement::kOrchestrationOnly:
        if (!InInCoreCode()) return;
        reporter_.Error(kRule, "ORCHESTRATION_ONLY_OP", call, SpanOf(call),
                        op + " must not be called in InCore code, but this call is " + Location() + "; " +
                            (incore_scopes_.empty()
                                 ? "call it in orchestration code and pass its result in as an argument"
                                 : "move it out of the `with pl.at(level=pl.Level.CORE_GROUP):` block into "
                                   "orchestration code"));
        return;
    }
  }

  Reporter& reporter_;
  bool in_incore_function_;
  std::vector<const ScopeStmt*> incore_scopes_;
};

}  // namespace

void CheckPlacement(const FunctionPtr& function, Reporter& reporter) {
  if (function->func_type == FunctionType::Inline) return;
  PlacementChecker(reporter).Run(function);
}

}  // namespace pypto::ir::verifier
