#include "outline_scopes.h"

#include <optional>
#include <string>
#include <vector>

#include "outliner.h"
#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::Ref;
using ir::ScopeKind;
using ir::StmtPtr;

namespace {

bool IsOrchestrationSide(const ir::Function& f) {
  return f.func_type == ir::FunctionType::Opaque || f.func_type == ir::FunctionType::Orchestration;
}

// The first scope of `kind` inside `body`, at any depth.
class ScopeFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  explicit ScopeFinder(ScopeKind kind) : kind_(kind) {}
  Ref<ir::ScopeStmt> found;
  void Visit_(const Ref<ir::ScopeStmt>& scope) override {
    if (scope->scope_kind == kind_ && !found) found = scope;
    IRVisitor::Visit_(scope);
  }

 private:
  ScopeKind kind_;
};

Ref<ir::ScopeStmt> FindScope(const StmtPtr& body, ScopeKind kind) {
  ScopeFinder finder(kind);
  finder.VisitStmt(body);
  return finder.found;
}

std::optional<outline::CalleeSpec> DecideIncore(const ir::ScopeStmt& scope, const ir::Function& parent, int index) {
  if (scope.scope_kind != ScopeKind::InCore) return std::nullopt;
  if (auto inner = FindScope(scope.body, ScopeKind::InCore)) {
    throw Error(ErrorKind::kValue,
                "OutlineIncoreScopes: in function '" + parent.name + "', the InCore scope at " + scope.span.ToString() +
                    " contains another InCore scope (at " + inner->span.ToString() +
                    "); InCore scopes do not nest. Remove the inner `with pl.at(level=pl.Level.CORE_GROUP)` or "
                    "move it out of the outer one",
                inner->span);
  }
  outline::CalleeSpec spec;
  spec.func_type = ir::FunctionType::InCore;
  spec.name = outline::CalleeName(scope, parent, "incore", index);
  spec.call_attrs = scope.attrs;
  outline::MakeSubmitIfTask(scope, {}, spec);
  if (scope.split != ir::SplitMode::None) spec.function_attrs.Set("split", ir::EnumAttr::Of(scope.split));
  // The ring depth shapes the kernel ExpandMixedKernel builds, not the call.
  if (auto slots = scope.attrs.Get<int64_t>("cross_core_slot")) {
    spec.function_attrs.Set("cross_core_slot", *slots);
    spec.call_attrs.Erase("cross_core_slot");
  }
  spec.body = scope.body;
  return spec;
}

std::optional<outline::CalleeSpec> DecideHierarchy(const ir::ScopeStmt& scope, const ir::Function& parent, int index) {
  if (scope.scope_kind != ScopeKind::Hierarchy) return std::nullopt;
  outline::CalleeSpec spec;
  spec.func_type = ir::FunctionType::Opaque;
  spec.name = outline::CalleeName(scope, parent, "hierarchy", index);
  spec.level = scope.level;
  spec.role = scope.role;
  spec.call_attrs = scope.attrs;
  spec.body = scope.body;
  return spec;
}

ir::Attrs SpmdLaunch(const ir::ScopeStmt& spmd) {
  ir::Attrs launch;
  if (spmd.core_num) launch.Set("core_num", spmd.core_num);
  launch.Set("sync_start", spmd.sync_start);
  return launch;
}

// A pl.spmd inside a pl.cluster is unwrapped into the Group function: the
// cluster is then launched as the grid. That only has one meaning when the
// spmd scope is the whole cluster body.
Ref<ir::ScopeStmt> UnwrappableSpmd(const ir::ScopeStmt& cluster, const ir::Function& parent) {
  auto inner = FindScope(cluster.body, ScopeKind::Spmd);
  if (!inner) return nullptr;
  std::vector<StmtPtr> stmts = ir::Flatten(cluster.body);
  if (stmts.size() == 1 && stmts[0] == inner) return inner;
  throw Error(ErrorKind::kValue,
              "OutlineClusterScopes: in function '" + parent.name + "', the pl.spmd scope at " +
                  inner->span.ToString() + " shares its pl.cluster (at " + cluster.span.ToString() +
                  ") with other statements; a pl.spmd inside pl.cluster launches the whole cluster as its grid, "
                  "so it must be the cluster's only statement. Move the other statements into the pl.spmd body "
                  "or out of the cluster",
              inner->span);
}

std::optional<outline::CalleeSpec> DecideCluster(const ir::ScopeStmt& scope, const ir::Function& parent, int index) {
  outline::CalleeSpec spec;
  spec.call_attrs = scope.attrs;
  spec.body = scope.body;
  if (scope.scope_kind == ScopeKind::Cluster) {
    spec.func_type = ir::FunctionType::Group;
    spec.name = outline::CalleeName(scope, parent, "cluster", index);
    if (auto spmd = UnwrappableSpmd(scope, parent)) {
      // The grid's task options (as tid, deps=) become the cluster launch's.
      spec.body = spmd->body;
      auto merged = std::make_shared<ir::ScopeStmt>(*spmd);
      merged->attrs = scope.attrs;
      for (const char* key : {"deps", "allow_early_resolve"}) {
        if (const ir::AttrValue* value = spmd->attrs.Find(key)) merged->attrs.Set(key, *value);
      }
      outline::MakeSubmitIfTask(*merged, SpmdLaunch(*spmd), spec);
    }
    return spec;
  }
  if (scope.scope_kind == ScopeKind::Spmd) {
    spec.func_type = ir::FunctionType::Spmd;
    spec.name = outline::CalleeName(scope, parent, "spmd", index);
    outline::MakeSubmitIfTask(scope, SpmdLaunch(scope), spec);
    return spec;
  }
  return std::nullopt;
}

}  // namespace

ir::ProgramPtr OutlineIncoreScopesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return outline::OutlineProgram(program, kName, IsOrchestrationSide, DecideIncore, ir::FunctionType::Orchestration,
                                 /*revisit_outlined=*/false);
}

ir::ProgramPtr OutlineHierarchyScopesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return outline::OutlineProgram(program, kName, IsOrchestrationSide, DecideHierarchy, std::nullopt,
                                 /*revisit_outlined=*/true);
}

ir::ProgramPtr OutlineClusterScopesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return outline::OutlineProgram(program, kName, IsOrchestrationSide, DecideCluster, ir::FunctionType::Orchestration,
                                 /*revisit_outlined=*/false);
}

}  // namespace pypto::passes
