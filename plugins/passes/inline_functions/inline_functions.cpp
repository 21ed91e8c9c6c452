#include "inline_functions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/fresh_copy.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::VarPtr;

namespace {

using InlineTable = std::unordered_map<std::string, FunctionPtr>;

// The Inline function `call` calls, or null.
FunctionPtr InlineCallee(const InlineTable& table, const ExprPtr& expr) {
  auto call = As<ir::Call>(expr);
  if (!call || !call->is_function_call()) return nullptr;
  auto it = table.find(call->callee_name());
  return it == table.end() ? nullptr : it->second;
}

// Names of the Inline functions a body calls, in order of appearance.
class InlineCallCollector : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  explicit InlineCallCollector(const InlineTable& table) : table_(table) {}

  std::vector<std::string> callees;

  void Visit_(const Ref<ir::Call>& call) override {
    if (InlineCallee(table_, call)) callees.push_back(call->callee_name());
    IRVisitor::Visit_(call);
  }

 private:
  const InlineTable& table_;
};

// Depth-first search for a cycle in the call graph of the Inline functions;
// a cycle would make splicing endless.
class CycleFinder {
 public:
  explicit CycleFinder(const InlineTable& table) : table_(table) {
    for (const auto& [name, function] : table) {
      InlineCallCollector collector(table);
      collector.VisitStmt(function->body);
      edges_[name] = std::move(collector.callees);
    }
  }

  void RejectCycles() {
    std::vector<std::string> names;
    for (const auto& entry : table_) names.push_back(entry.first);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) Visit(name);
  }

 private:
  void Visit(const std::string& name) {
    if (done_.count(name)) return;
    auto on_path = std::find(path_.begin(), path_.end(), name);
    if (on_path != path_.end()) Reject(std::vector<std::string>(on_path, path_.end()), name);
    path_.push_back(name);
    for (const auto& callee : edges_[name]) Visit(callee);
    path_.pop_back();
    done_.insert(name);
  }

  [[noreturn]] void Reject(const std::vector<std::string>& cycle, const std::string& back) const {
    std::string chain;
    for (const auto& name : cycle) chain += name + " -> ";
    chain += back;
    throw Error(ErrorKind::kValue,
                "InlineFunctions: the Inline functions call each other in a cycle (" + chain +
                    "); splicing them would never end. Make one function of the cycle a non-Inline function "
                    "(drop type=pl.FunctionType.Inline) or remove the recursive call",
                table_.at(cycle.front())->span);
  }

  const InlineTable& table_;
  std::unordered_map<std::string, std::vector<std::string>> edges_;
  std::vector<std::string> path_;
  std::unordered_set<std::string> done_;
};

// A return anywhere but at the end of the body cannot be spliced.
class ReturnFinder : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;
  StmtPtr found;
  void Visit_(const Ref<ir::ReturnStmt>& s) override {
    if (!found) found = s;
  }
};

// Counts, per variable, all uses and the uses as `v = x[i]` (an unpacking
// statement). A tuple of spliced results that is only unpacked needs no
// MakeTuple: each unpacking statement binds the result directly.
class UnpackCounter : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  bool OnlyUnpacked(const ir::Var* var) const {
    auto uses = uses_.find(var);
    auto unpacks = unpacks_.find(var);
    return uses != uses_.end() && unpacks != unpacks_.end() && uses->second == unpacks->second;
  }

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    auto item = As<ir::TupleGetItem>(stmt->value);
    if (auto tuple = item ? As<ir::Var>(item->tuple) : nullptr) ++unpacks_[tuple.get()];
    IRVisitor::Visit_(stmt);
  }
  void Visit_(const Ref<ir::Var>& var) override { ++uses_[var.get()]; }
  void Visit_(const Ref<ir::IterArg>& var) override { ++uses_[var.get()]; }

 private:
  std::unordered_map<const ir::Var*, int> uses_;
  std::unordered_map<const ir::Var*, int> unpacks_;
};

// Splices Inline calls in one caller. Spliced bodies are visited again, so
// Inline functions that call Inline functions expand to a fixpoint (the
// cycle check guarantees it is reached).
class Inliner : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  Inliner(const InlineTable& table, const ir::Function& caller) : table_(table), caller_(caller.name) {
    unpacks_.VisitStmt(caller.body);
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& stmt) override {
    if (auto unpacked = UnpackedValue(*stmt)) return ir::AssignStmt::Make(VisitVarDef(stmt->var), unpacked, stmt->span);
    FunctionPtr callee = InlineCallee(table_, stmt->value);
    if (!callee) return IRMutator::Mutate_(stmt);
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> results = Splice(*callee, *As<ir::Call>(stmt->value), stmt->span, stmts);
    if (results.size() == 1) {
      stmts.push_back(ir::AssignStmt::Make(VisitVarDef(stmt->var), results[0], stmt->span));
      return ir::SeqStmts::Make(std::move(stmts), stmt->span);
    }
    tuple_results_[stmt->var.get()] = results;
    if (!unpacks_.OnlyUnpacked(stmt->var.get())) {
      stmts.push_back(
          ir::AssignStmt::Make(VisitVarDef(stmt->var), ir::MakeTuple::Make(results, stmt->span), stmt->span));
    }
    return ir::SeqStmts::Make(std::move(stmts), stmt->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& stmt) override {
    FunctionPtr callee = InlineCallee(table_, stmt->expr);
    if (!callee) return IRMutator::Mutate_(stmt);
    std::vector<StmtPtr> stmts;
    Splice(*callee, *As<ir::Call>(stmt->expr), stmt->span, stmts);
    return ir::SeqStmts::Make(std::move(stmts), stmt->span);
  }

  // Only calls bound directly by an assignment or evaluated for effect reach here via the hooks
  // above; any other Inline call sits inside an expression.
  ExprPtr Mutate_(const Ref<ir::Call>& call) override {
    if (InlineCallee(table_, call)) {
      throw Error(ErrorKind::kValue,
                  "InlineFunctions: in function '" + caller_ + "', the call of Inline function '" +
                      call->callee_name() + "' is nested inside another expression; only `x = self." +
                      call->callee_name() +
                      "(...)` or a bare call statement can be inlined. Bind the call to a name first",
                  call->span);
    }
    return IRMutator::Mutate_(call);
  }

  // Splices the statements of expanded calls into the enclosing sequence.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : node->stmts) {
      StmtPtr updated = VisitStmt(child);
      changed |= updated != child;
      if (auto seq = As<ir::SeqStmts>(updated); seq && updated != child) {
        stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
      } else {
        stmts.push_back(updated);
      }
    }
    if (!changed) return node;
    auto copy = std::make_shared<ir::SeqStmts>(*node);
    copy->stmts = std::move(stmts);
    return copy;
  }

 private:
  // Appends the callee's body, copied for this site, to `out` and returns the
  // values it returns.
  std::vector<ExprPtr> Splice(const ir::Function& callee, const ir::Call& call, const Span& span,
                              std::vector<StmtPtr>& out) {
    std::vector<ExprPtr> args;
    for (const auto& arg : call.args) args.push_back(VisitExpr(arg));
    if (args.size() != callee.params.size()) {
      throw Error(ErrorKind::kValue,
                  "InlineFunctions: in function '" + caller_ + "', Inline function '" + callee.name + "' takes " +
                      std::to_string(callee.params.size()) + " argument(s) but is called with " +
                      std::to_string(args.size()) + "; pass one argument per parameter",
                  span);
    }
    ir::VarSubstitutions substitutions;
    for (size_t i = 0; i < args.size(); ++i) substitutions[callee.params[i].get()] = args[i];
    const std::string suffix = "_inline" + std::to_string(site_count_++);
    std::vector<StmtPtr> body = ir::Flatten(ir::CopyWithFreshDefinitions(callee.body, std::move(substitutions), suffix));

    std::vector<ExprPtr> results;
    if (!body.empty()) {
      if (auto ret = As<ir::ReturnStmt>(body.back())) {
        results = ret->values;
        body.pop_back();
      }
    }
    RejectInnerReturns(callee, body);
    StmtPtr spliced = VisitStmt(ir::SeqStmts::Make(std::move(body), span));
    std::vector<StmtPtr> flat = ir::Flatten(spliced);
    out.insert(out.end(), flat.begin(), flat.end());
    return results;
  }

  void RejectInnerReturns(const ir::Function& callee, const std::vector<StmtPtr>& body) const {
    ReturnFinder finder;
    for (const auto& s : body) finder.VisitStmt(s);
    if (!finder.found) return;
    throw Error(ErrorKind::kValue,
                "InlineFunctions: Inline function '" + callee.name + "' (called from '" + caller_ +
                    "') returns before its last statement; an Inline body is spliced into the caller, so it may "
                    "return only at its end. Compute the result in an if with yields and return it once",
                finder.found->span);
  }

  // `v = r[i]` where `r` was bound to a spliced call's results: the i-th result itself.
  ExprPtr UnpackedValue(const ir::AssignStmt& stmt) const {
    auto item = As<ir::TupleGetItem>(stmt.value);
    auto tuple = item ? As<ir::Var>(item->tuple) : nullptr;
    auto it = tuple ? tuple_results_.find(tuple.get()) : tuple_results_.end();
    if (it == tuple_results_.end() || item->index < 0 || item->index >= static_cast<int64_t>(it->second.size())) {
      return nullptr;
    }
    return it->second[item->index];
  }

  const InlineTable& table_;
  std::string caller_;
  UnpackCounter unpacks_;
  std::unordered_map<const ir::Var*, std::vector<ExprPtr>> tuple_results_;
  int site_count_ = 0;
};

}  // namespace

ir::ProgramPtr InlineFunctionsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  InlineTable table;
  for (const auto& function : program->functions) {
    if (function->func_type == ir::FunctionType::Inline) table[function->name] = function;
  }
  if (table.empty()) return program;
  CycleFinder(table).RejectCycles();

  std::vector<FunctionPtr> functions;
  for (const auto& function : program->functions) {
    if (function->func_type == ir::FunctionType::Inline) continue;
    functions.push_back(Inliner(table, *function).VisitFunction(function));
  }
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
