#include "pypto/ir/result_params.h"

#include <string>
#include <unordered_map>

#include "pypto/ir/ir.h"
#include "pypto/ops/registry.h"

namespace pypto::ir {
namespace {

// The argument whose buffer an op's result is: a view's source, or the
// destination of an in-place write.
const Expr* BufferSource(const Call& call) {
  if (call.is_function_call() || call.args.empty()) return nullptr;
  const std::string& name = call.op->name;
  if (name == "tensor.slice" || name == "tensor.view" || name == "tensor.reshape" || name == "tensor.transpose") {
    return call.args[0].get();
  }
  const ops::OpDef* def = ops::OpRegistry::Global().Find(name);
  if (!def || !def->output_reuses_input()) return nullptr;
  const size_t index = static_cast<size_t>(*def->output_reuses_input());
  return index < call.args.size() ? call.args[index].get() : nullptr;
}

}  // namespace

std::vector<int> ResultParams(const Function& function) {
  std::vector<StmtPtr> body = Flatten(function.body);
  auto ret = body.empty() ? nullptr : As<ReturnStmt>(body.back());
  if (!ret) return {};
  std::unordered_map<const Expr*, const Expr*> source;  // a variable -> the value it is a buffer of
  // A loop-carried tensor is its init value's buffer: a kernel cannot allocate global memory.
  auto carry = [&source](const std::vector<IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (size_t i = 0; i < iter_args.size() && i < return_vars.size(); ++i) {
      if (iter_args[i]->init_value) source[return_vars[i].get()] = iter_args[i]->init_value.get();
    }
  };
  for (const auto& stmt : body) {
    if (auto loop = As<ForStmt>(stmt)) carry(loop->iter_args, loop->return_vars);
    if (auto loop = As<WhileStmt>(stmt)) carry(loop->iter_args, loop->return_vars);
    auto assign = As<AssignStmt>(stmt);
    if (!assign) continue;
    if (IsA<Var>(assign->value)) {
      source[assign->var.get()] = assign->value.get();
    } else if (auto call = As<Call>(assign->value)) {
      if (const Expr* from = BufferSource(*call)) source[assign->var.get()] = from;
    }
  }
  std::unordered_map<const Expr*, int> param_index;
  for (size_t p = 0; p < function.params.size(); ++p) param_index[function.params[p].get()] = static_cast<int>(p);
  std::vector<int> result;
  for (const auto& value : ret->values) {
    const Expr* at = value.get();
    // At most one step per definition, so a body that is not in SSA form cannot loop.
    for (size_t steps = 0; steps <= source.size() && !param_index.count(at) && source.count(at); ++steps) {
      at = source.at(at);
    }
    auto it = param_index.find(at);
    result.push_back(it != param_index.end() ? it->second : -1);
  }
  return result;
}

}  // namespace pypto::ir
