#include "dispatch.h"

#include <optional>
#include <unordered_map>

#include "pypto/backend/backend.h"
#include "pypto/ir/result_params.h"
#include "pypto/ops/registry.h"

namespace pypto::host {
namespace {

using ir::As;

// Wrappers nest at most Spmd -> Group -> kernel; deeper means a cycle.
constexpr int kMaxWrapperDepth = 3;

// Per parameter of a function: the outer call argument it receives, or -1.
using ArgMap = std::vector<int>;

int ParamIndex(const ir::Function& fn, const ir::Expr* value) {
  for (size_t p = 0; p < fn.params.size(); ++p) {
    if (fn.params[p].get() == value) return static_cast<int>(p);
  }
  return -1;
}

struct InnerCall {
  const ir::Call* call;
  const ir::Var* result;  // the variable it is assigned to; null for a bare call
};

class Resolver {
 public:
  Resolver(const ir::Program& program, const DispatchError& error) : program_(program), error_(error) {}

  const ir::Function& Callee(const ir::Call& call) const {
    auto fn = program_.Find(call.callee_name());
    if (!fn) error_("the program has no function '" + call.callee_name() + "'");
    return *fn;
  }

  void Resolve(const ir::Function& fn, const ArgMap& map, int depth, TaskDispatch& out) const {
    if (depth > kMaxWrapperDepth) error_("function '" + fn.name + "' wraps itself through Spmd/Group functions");
    if (ir::IsCoreKernel(fn.func_type)) {
      out.single = &fn;
      out.slots = Slots(fn, map);
    } else if (fn.func_type == ir::FunctionType::Spmd) {
      ResolveSpmd(fn, map, depth, out);
    } else if (fn.func_type == ir::FunctionType::Group) {
      ResolveGroup(fn, map, out);
    } else {
      error_("function '" + fn.name + "' is " + ir::ToString(fn.func_type) +
             ", not a kernel, Spmd or Group function; orchestration code submits only those (InlineFunctions "
             "inlines calls of other orchestration functions)");
    }
  }

  // Which parameter of `fn` each of its results is (-1: not traced). The
  // core's ResultParams follows views and in-place ops; this also follows
  // calls of other functions (wrappers) and loop-carried tensors, whose
  // buffer is their init value's: a kernel cannot allocate global memory.
  std::vector<int> ResultParamsOf(const ir::Function& fn, int depth) const {
    std::vector<int> direct = ir::ResultParams(fn);
    std::unordered_map<const ir::Expr*, int> param_of;
    std::unordered_map<const ir::Expr*, std::vector<int>> tuple_params_of;
    for (size_t p = 0; p < fn.params.size(); ++p) param_of[fn.params[p].get()] = static_cast<int>(p);
    auto lookup = [&](const ir::ExprPtr& e) {
      auto it = param_of.find(e.get());
      return it == param_of.end() ? -1 : it->second;
    };
    std::vector<ir::StmtPtr> body = ir::Flatten(fn.body);
    for (const auto& stmt : body) {
      if (auto loop = As<ir::ForStmt>(stmt)) {
        CarryThrough(loop->iter_args, loop->return_vars, lookup, param_of);
      } else if (auto loop = As<ir::WhileStmt>(stmt)) {
        CarryThrough(loop->iter_args, loop->return_vars, lookup, param_of);
      } else if (auto assign = As<ir::AssignStmt>(stmt)) {
        TraceAssign(*assign, depth, lookup, param_of, tuple_params_of);
      }
    }
    auto ret = body.empty() ? nullptr : As<ir::ReturnStmt>(body.back());
    std::vector<int> result;
    for (size_t i = 0; ret && i < ret->values.size(); ++i) {
      result.push_back(i < direct.size() && direct[i] >= 0 ? direct[i] : lookup(ret->values[i]));
    }
    return result;
  }

 private:
  template <class Lookup>
  static void CarryThrough(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<ir::VarPtr>& return_vars,
                           const Lookup& lookup, std::unordered_map<const ir::Expr*, int>& param_of) {
    for (size_t i = 0; i < iter_args.size() && i < return_vars.size(); ++i) {
      param_of[return_vars[i].get()] = lookup(iter_args[i]->init_value);
    }
  }

  template <class Lookup>
  void TraceAssign(const ir::AssignStmt& assign, int depth, const Lookup& lookup,
                   std::unordered_map<const ir::Expr*, int>& param_of,
                   std::unordered_map<const ir::Expr*, std::vector<int>>& tuple_params_of) const {
    const ir::Expr* var = assign.var.get();
    if (ir::IsA<ir::Var>(assign.value)) {
      param_of[var] = lookup(assign.value);
    } else if (auto item = As<ir::TupleGetItem>(assign.value)) {
      auto it = tuple_params_of.find(item->tuple.get());
      if (it != tuple_params_of.end() && item->index < static_cast<int64_t>(it->second.size())) {
        param_of[var] = it->second[static_cast<size_t>(item->index)];
      }
    } else if (auto call = As<ir::Call>(assign.value); call && call->is_function_call()) {
      if (depth >= kMaxWrapperDepth) return;
      std::vector<int> through;
      for (int inner : ResultParamsOf(Callee(*call), depth + 1)) {
        bool known = inner >= 0 && static_cast<size_t>(inner) < call->args.size();
        through.push_back(known ? lookup(call->args[static_cast<size_t>(inner)]) : -1);
      }
      if (ir::IsA<ir::TupleType>(call->type)) {
        tuple_params_of[var] = through;
      } else if (through.size() == 1) {
        param_of[var] = through[0];
      }
    } else if (auto op = As<ir::Call>(assign.value)) {
      if (auto source = BufferSourceArg(*op)) param_of[var] = lookup(op->args[*source]);
    }
  }

  // The argument an op's result shares its buffer with: a view's source or
  // the destination of an in-place write.
  static std::optional<size_t> BufferSourceArg(const ir::Call& op) {
    const std::string& name = op.op->name;
    if (op.args.empty()) return std::nullopt;
    if (name == "tensor.slice" || name == "tensor.view" || name == "tensor.reshape" || name == "tensor.transpose") {
      return 0;
    }
    const ops::OpDef* def = ops::OpRegistry::Global().Find(name);
    if (!def || !def->output_reuses_input()) return std::nullopt;
    auto index = static_cast<size_t>(*def->output_reuses_input());
    if (index >= op.args.size()) return std::nullopt;
    return index;
  }

  // Tensors first in parameter order, then scalars in parameter order.
  std::vector<size_t> Slots(const ir::Function& fn, const ArgMap& map) const {
    std::vector<size_t> tensors, scalars;
    for (size_t p = 0; p < fn.params.size(); ++p) {
      const ir::Var& param = *fn.params[p];
      bool tensor = ir::IsA<ir::TensorType>(param.type);
      if (!tensor && !ir::IsA<ir::ScalarType>(param.type)) {
        error_("parameter '" + param.name_hint + "' of '" + fn.name + "' has type " + ir::TypeToString(param.type) +
               "; a task argument is a tensor or a scalar");
      }
      if (map[p] < 0) {
        error_("parameter '" + param.name_hint + "' of kernel '" + fn.name +
               "' receives a value computed inside its wrapper; an Spmd/Group function must pass its own "
               "parameters straight to the kernels it calls");
      }
      (tensor ? tensors : scalars).push_back(static_cast<size_t>(map[p]));
    }
    tensors.insert(tensors.end(), scalars.begin(), scalars.end());
    return tensors;
  }

  // The calls of program functions in a wrapper's body; anything else there
  // would have to run on the device, which only kernels do.
  std::vector<InnerCall> InnerCalls(const ir::Function& wrapper) const {
    std::vector<InnerCall> calls;
    for (const auto& stmt : ir::Flatten(wrapper.body)) {
      const ir::Expr* value = nullptr;
      const ir::Var* result = nullptr;
      if (auto assign = As<ir::AssignStmt>(stmt)) {
        value = assign->value.get();
        result = assign->var.get();
      } else if (auto eval = As<ir::EvalStmt>(stmt)) {
        value = eval->expr.get();
      } else if (ir::IsA<ir::ReturnStmt>(stmt)) {
        continue;
      }
      auto call = value ? As<ir::Call>(value) : nullptr;
      if (call && call->is_function_call()) {
        calls.push_back({call, result});
      } else if (!(value && (As<ir::Var>(value) || As<ir::TupleGetItem>(value)))) {
        error_(std::string(ir::ToString(wrapper.func_type)) + " function '" + wrapper.name + "' holds a " +
               stmt->type_name() + " that is not a kernel call; the host backend submits its kernels, so code "
               "between them has no place to run (move it into a kernel)");
      }
    }
    return calls;
  }

  ArgMap InnerMap(const ir::Function& wrapper, const ir::Call& inner, const ArgMap& map) const {
    ArgMap inner_map;
    for (const auto& arg : inner.args) {
      int p = ParamIndex(wrapper, arg.get());
      inner_map.push_back(p < 0 ? -1 : map[static_cast<size_t>(p)]);
    }
    const ir::Function& callee = Callee(inner);
    if (inner_map.size() != callee.params.size()) {
      error_("'" + wrapper.name + "' calls '" + callee.name + "' with " + std::to_string(inner_map.size()) +
             " arguments; it has " + std::to_string(callee.params.size()) + " parameters");
    }
    return inner_map;
  }

  void ResolveSpmd(const ir::Function& fn, const ArgMap& map, int depth, TaskDispatch& out) const {
    auto calls = InnerCalls(fn);
    if (calls.size() != 1) {
      error_("Spmd function '" + fn.name + "' calls " + std::to_string(calls.size()) +
             " functions; a grid launches exactly one kernel or Group");
    }
    Resolve(Callee(*calls[0].call), InnerMap(fn, *calls[0].call, map), depth + 1, out);
  }

  void ResolveGroup(const ir::Function& fn, const ArgMap& map, TaskDispatch& out) const {
    out.mixed = true;
    for (const auto& inner : InnerCalls(fn)) {
      const ir::Function& kernel = Callee(*inner.call);
      if (!ir::IsCoreKernel(kernel.func_type)) {
        error_("Group function '" + fn.name + "' calls '" + kernel.name + "', which is " +
               ir::ToString(kernel.func_type) + "; a Group holds AIC and AIV kernels only");
      }
      RequireGroupParams(fn, kernel, *inner.call);
      AddGroupMember(fn, kernel, out);
    }
    if (!out.aic && out.aiv.empty()) error_("Group function '" + fn.name + "' calls no kernel");
    out.slots = Slots(fn, map);
  }

  // All members of a cluster task see one argument list, the Group's; a
  // member taking other arguments would read the wrong slots.
  void RequireGroupParams(const ir::Function& group, const ir::Function& kernel, const ir::Call& inner) const {
    bool same = inner.args.size() == group.params.size();
    for (size_t i = 0; same && i < inner.args.size(); ++i) same = inner.args[i].get() == group.params[i].get();
    if (!same) {
      error_("Group function '" + group.name + "' calls '" + kernel.name +
             "' with arguments other than its own parameters in order; the members of a cluster task share the "
             "Group's argument slots, so each member must take the Group's parameters unchanged");
    }
  }

  void AddGroupMember(const ir::Function& group, const ir::Function& kernel, TaskDispatch& out) const {
    if (backend::KernelCoreType(kernel) == ir::FunctionType::AIC) {
      if (out.aic) error_("Group function '" + group.name + "' calls two AIC kernels; a cluster has one AIC");
      out.aic = &kernel;
    } else {
      if (out.aiv.size() == 2) error_("Group function '" + group.name + "' calls three AIV kernels; a cluster has two");
      out.aiv.push_back(&kernel);
    }
  }

  const ir::Program& program_;
  const DispatchError& error_;
};

}  // namespace

TaskDispatch ResolveDispatch(const ir::Program& program, const ir::Call& call, const DispatchError& error) {
  Resolver resolver(program, error);
  const ir::Function& callee = resolver.Callee(call);
  if (call.args.size() != callee.params.size()) {
    error("the call passes " + std::to_string(call.args.size()) + " arguments; '" + callee.name + "' has " +
          std::to_string(callee.params.size()) + " parameters");
  }
  ArgMap identity;
  for (size_t i = 0; i < call.args.size(); ++i) identity.push_back(static_cast<int>(i));
  TaskDispatch out;
  resolver.Resolve(callee, identity, 0, out);
  out.result_args = resolver.ResultParamsOf(callee, 0);
  return out;
}

std::map<std::string, int> NumberKernels(const ir::Program& program) {
  std::map<std::string, int> ids;
  int next = 0;
  for (const auto& fn : program.functions) {
    if (ir::IsCoreKernel(fn->func_type)) ids[fn->name] = next++;
  }
  return ids;
}

}  // namespace pypto::host
