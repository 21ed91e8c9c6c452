#include "derive_call_directions.h"

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/result_params.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

bool IsKernel(ir::FunctionType t) {
  return t == ir::FunctionType::InCore || t == ir::FunctionType::AIC || t == ir::FunctionType::AIV ||
         t == ir::FunctionType::Group || t == ir::FunctionType::Spmd;
}

bool IsOrchestrationSide(ir::FunctionType t) {
  return t == ir::FunctionType::Orchestration || t == ir::FunctionType::Opaque;
}

// Ops whose result is the same buffer as argument 0 (a view, or the target written in place).
bool AliasesFirstArg(const std::string& op) {
  return op == "tensor.slice" || op == "tensor.view" || op == "tensor.reshape" || op == "tensor.assemble";
}

class DirectionDeriver : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  DirectionDeriver(const ir::Program& program, const ir::Function& function) : program_(program) {
    for (size_t i = 0; i < function.params.size(); ++i) {
      if (i < function.param_directions.size() && function.param_directions[i] == ir::ParamDirection::InOut) {
        inout_params_.insert(function.params[i].get());
      }
    }
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& loop) override {
    for (const auto& iter_arg : loop->iter_args) Alias(iter_arg.get(), iter_arg->init_value);
    const bool sequential = loop->for_kind != ir::ForKind::Parallel;
    sequential_depth_ += sequential ? 1 : 0;
    StmtPtr result = IRMutator::Mutate_(loop);
    sequential_depth_ -= sequential ? 1 : 0;
    for (size_t i = 0; i < loop->return_vars.size() && i < loop->iter_args.size(); ++i) {
      Alias(loop->return_vars[i].get(), loop->iter_args[i]->init_value);
    }
    return result;
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& loop) override {
    for (const auto& iter_arg : loop->iter_args) Alias(iter_arg.get(), iter_arg->init_value);
    ++sequential_depth_;
    StmtPtr result = IRMutator::Mutate_(loop);
    --sequential_depth_;
    for (size_t i = 0; i < loop->return_vars.size() && i < loop->iter_args.size(); ++i) {
      Alias(loop->return_vars[i].get(), loop->iter_args[i]->init_value);
    }
    return result;
  }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& stmt) override {
    StmtPtr result = IRMutator::Mutate_(stmt);
    RecordRoots(*stmt);
    return result;
  }

  ExprPtr Mutate_(const Ref<ir::Call>& call) override {
    auto visited = As<ir::Call>(IRMutator::Mutate_(call));
    if (!visited->is_function_call()) return visited;
    FunctionPtr callee = program_.Find(visited->callee_name());
    if (!callee || !IsKernel(callee->func_type)) return visited;
    auto annotated = std::make_shared<ir::Call>(*visited);
    annotated->attrs.Set("arg_directions", Directions(*visited, *callee));
    return annotated;
  }

 private:
  std::vector<std::string> Directions(const ir::Call& call, const ir::Function& callee) {
    auto existing = call.attrs.Get<std::vector<std::string>>("arg_directions");
    std::vector<std::string> directions;
    std::vector<const ir::Var*> written;
    auto no_dep_args = call.attrs.Get<std::vector<ExprPtr>>("no_dep_args");
    for (size_t i = 0; i < call.args.size(); ++i) {
      const bool user_no_dep = (existing && i < existing->size() && (*existing)[i] == "NoDep") ||
                               (no_dep_args && IsListed(call.args[i], *no_dep_args));
      directions.push_back(user_no_dep ? "NoDep" : Direction(call, callee, i, written));
    }
    for (const ir::Var* root : written) written_roots_.insert(root);
    return directions;
  }

  // `no_dep_args` (pl.at(no_dep_args=[t]), pl.no_dep(t)) lists the variables themselves.
  static bool IsListed(const ExprPtr& arg, const std::vector<ExprPtr>& listed) {
    return std::any_of(listed.begin(), listed.end(), [&](const ExprPtr& e) { return e == arg; });
  }

  std::string Direction(const ir::Call& call, const ir::Function& callee, size_t i,
                        std::vector<const ir::Var*>& written) {
    const ExprPtr& arg = call.args[i];
    if (ir::IsA<ir::ScalarType>(arg->type)) return "Scalar";
    const ir::ParamDirection param =
        i < callee.param_directions.size() ? callee.param_directions[i] : ir::ParamDirection::In;
    if (param == ir::ParamDirection::In) return "Input";
    const ir::Var* root = RootOf(arg);
    if (root) written.push_back(root);
    if (param == ir::ParamDirection::InOut) return "InOut";
    const bool promote = sequential_depth_ > 0 || (root && (written_roots_.count(root) || inout_params_.count(root)));
    return promote ? "InOut" : "OutputExisting";
  }

  const ir::Var* RootOf(const ExprPtr& expr) const {
    auto var = As<ir::Var>(expr);
    if (!var) return nullptr;
    auto it = roots_.find(var.get());
    return it != roots_.end() ? it->second : var.get();
  }

  void Alias(const ir::Var* var, const ExprPtr& source) {
    if (const ir::Var* root = RootOf(source)) roots_[var] = root;
  }

  void RecordRoots(const ir::AssignStmt& stmt) {
    if (ir::IsA<ir::Var>(stmt.value)) return Alias(stmt.var.get(), stmt.value);
    if (auto item = As<ir::TupleGetItem>(stmt.value)) {
      auto tuple = As<ir::Var>(item->tuple);
      auto it = tuple ? tuple_roots_.find(tuple.get()) : tuple_roots_.end();
      if (it != tuple_roots_.end() && item->index < static_cast<int64_t>(it->second.size()) &&
          it->second[item->index]) {
        roots_[stmt.var.get()] = it->second[item->index];
      }
      return;
    }
    if (auto submit = As<ir::Submit>(stmt.value)) {
      // A submit's value is always a tuple: the call's results, then the task id (no buffer).
      auto call = submit->kernel_call();
      std::vector<const ir::Var*> roots = call ? ResultRoots(*call) : std::vector<const ir::Var*>{};
      roots.resize(static_cast<size_t>(submit->task_id_index()) + 1, nullptr);
      tuple_roots_[stmt.var.get()] = std::move(roots);
      return;
    }
    auto call = As<ir::Call>(stmt.value);
    if (!call || call->args.empty()) return;
    if (!call->is_function_call()) {
      if (AliasesFirstArg(call->op->name)) Alias(stmt.var.get(), call->args[0]);
      return;
    }
    if (!program_.Find(call->callee_name())) return;
    std::vector<const ir::Var*> roots = ResultRoots(*call);
    if (roots.size() == 1) {
      if (roots[0]) roots_[stmt.var.get()] = roots[0];
    } else {
      tuple_roots_[stmt.var.get()] = std::move(roots);
    }
  }

  // The buffer root of each result of a function call (null for a fresh value).
  std::vector<const ir::Var*> ResultRoots(const ir::Call& call) const {
    FunctionPtr callee = program_.Find(call.callee_name());
    if (!callee) return {};
    std::vector<const ir::Var*> roots;
    for (int p : ir::ResultParams(*callee)) {
      roots.push_back(p >= 0 && p < static_cast<int>(call.args.size()) ? RootOf(call.args[p]) : nullptr);
    }
    return roots;
  }

  const ir::Program& program_;
  std::unordered_set<const ir::Var*> inout_params_;
  std::unordered_map<const ir::Var*, const ir::Var*> roots_;
  std::unordered_map<const ir::Var*, std::vector<const ir::Var*>> tuple_roots_;
  std::unordered_set<const ir::Var*> written_roots_;
  int sequential_depth_ = 0;
};

}  // namespace

ir::ProgramPtr DeriveCallDirectionsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    if (!IsOrchestrationSide(function->func_type)) {
      functions.push_back(function);
      continue;
    }
    FunctionPtr updated = DirectionDeriver(*program, *function).VisitFunction(function);
    changed |= updated != function;
    functions.push_back(updated);
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
