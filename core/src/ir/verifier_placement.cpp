// OpPlacement: ops restricted to InCore code appear only there, ops
// restricted to orchestration code never do, and the host orchestrator's ops
// (window buffers, dispatches) appear only in a @pl.jit.host function, which
// holds no InCore code.
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
      : reporter_(reporter),
        in_incore_function_(IsInCoreFunction(reporter.function().func_type)),
        in_host_(ops::IsHostOrchestrator(reporter.function())) {}

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
      case ops::Placement::kInCoreOrHost:
        if (InInCoreCode() || in_host_) return;
        reporter_.Error(kRule, "INCORE_OR_HOST_OP", call, SpanOf(call),
                        op + " runs in InCore code (the kernel's composite) or in a @pl.jit.host orchestrator (the "
                            "host builtin), but this call is " + Location() +
                            "; call it in a kernel, or on windows in the host orchestrator");
        return;
      case ops::Placement::kHostOnly:
        if (in_host_) return;
        reporter_.Error(kRule, "HOST_ONLY_OP", call, SpanOf(call),
                        op + " belongs to a @pl.jit.host orchestrator, but this call is " + Location() +
                            "; call it in the host orchestrator and pass its result in as an argument");
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
  bool in_host_;
  std::vector<const ScopeStmt*> incore_scopes_;
};

}  // namespace

void CheckPlacement(const FunctionPtr& function, Reporter& reporter) {
  if (function->func_type == FunctionType::Inline) return;
  PlacementChecker(reporter).Run(function);
}

}  // namespace pypto::ir::verifier
