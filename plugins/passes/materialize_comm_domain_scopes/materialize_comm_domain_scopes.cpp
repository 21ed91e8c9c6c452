#include "materialize_comm_domain_scopes.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/printer.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;

namespace {

// The devices a buffer's views reach: every rank, or a set of device numbers.
struct DeviceSet {
  bool all = false;
  std::set<int64_t> devices;

  bool empty() const { return !all && devices.empty(); }
  void Merge(const DeviceSet& other) {
    all = all || other.all;
    devices.insert(other.devices.begin(), other.devices.end());
    if (all) devices.clear();
  }
  bool operator<(const DeviceSet& other) const {
    return std::tie(all, devices) < std::tie(other.all, other.devices);
  }
};

struct Allocation {
  std::string name;
  Span span;
  bool viewed = false;
  bool in_collective = false;
  DeviceSet devices;
};

Ref<ir::Call> OpCall(const ExprPtr& value) {
  auto call = value ? ir::As<ir::Call>(value) : nullptr;
  return call && !call->is_function_call() ? call : nullptr;
}

bool IsOp(const ExprPtr& value, const char* name) {
  auto call = OpCall(value);
  return call && call->op->name == name;
}

bool IsHostCollective(const ir::Call& call) {
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
  return def && def->placement() == ops::Placement::kInCoreOrHost;
}

// Finds each buffer's devices. Buffers used together in one host collective are merged (union-find),
// since a collective runs inside one domain.
class DomainAnalysis : public ir::IRVisitor {
 public:
  void Visit_(const Ref<ir::ForStmt>& loop) override {
    loops_.push_back(loop.get());
    loop_of_[loop->loop_var.get()] = loop.get();
    for (size_t i = 0; i < loop->iter_args.size(); ++i) {
      Alias(loop->iter_args[i], loop->iter_args[i]->init_value);
      if (i < loop->return_vars.size()) Alias(loop->return_vars[i], loop->iter_args[i]->init_value);
    }
    VisitChildren(*loop);
    loops_.pop_back();
  }

  // A window yielded out of an if is the if's result: `v = pl.yield_(w)` in each branch.
  void Visit_(const Ref<ir::IfStmt>& branch) override {
    VisitChildren(*branch);
    for (const StmtPtr& body : {branch->then_body, branch->else_body}) {
      if (!body) continue;
      auto yield = ir::As<ir::YieldStmt>(ir::Flatten(body).back());
      if (!yield) continue;
      for (size_t i = 0; i < yield->values.size() && i < branch->return_vars.size(); ++i) {
        Alias(branch->return_vars[i], yield->values[i]);
      }
    }
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    loops_.push_back(loop.get());
    VisitChildren(*loop);
    loops_.pop_back();
  }

  void Visit_(const Ref<ir::AssignStmt>& assign) override {
    const ExprPtr& value = assign->value;
    if (IsOp(value, "system.world_size")) world_vars_.insert(assign->var.get());
    if (IsOp(value, "tensor.alloc_window_buffer")) {
      Allocate(assign->var, assign->span);
      named_allocations_.insert(value.get());
    } else if (auto var = ir::As<ir::Var>(value)) {
      Alias(assign->var, var);
    } else if (auto call = OpCall(value)) {
      Use(*call, assign->span);
      if (call->op->name == "tensor.window") {
        Alias(assign->var, call->args[0]);
      } else if (IsHostCollective(*call)) {
        const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op->name);
        if (auto reused = def->output_reuses_input()) Alias(assign->var, call->args[static_cast<size_t>(*reused)]);
      }
    }
    IRVisitor::Visit_(assign);
  }

  // Views may be made inline (`prog(pld.window(buf, ...), device=r)`); a buffer must be named.
  void Visit_(const Ref<ir::Call>& call) override {
    if (!call->is_function_call() && call->op->name == "tensor.window") {
      if (auto id = AllocationOf(call->args[0])) allocations_[static_cast<size_t>(*id)].viewed = true;
    }
    if (!call->is_function_call() && call->op->name == "tensor.alloc_window_buffer" &&
        !named_allocations_.count(call.get())) {
      ThrowValueError("pld.alloc_window_buffer(...) inside an expression: a window buffer is named by the variable it "
                      "is assigned to; write buf = pld.alloc_window_buffer(...) and view it with pld.window(buf, ...)",
                      call->span);
    }
    IRVisitor::Visit_(call);
  }

  void Visit_(const Ref<ir::EvalStmt>& eval) override {
    if (auto call = OpCall(eval->expr)) Use(*call, eval->span);
    IRVisitor::Visit_(eval);
  }

  // Each allocation's device set (merged over its group), after the checks of spec §4.3.
  std::vector<std::pair<Allocation, DeviceSet>> Result() {
    std::vector<std::pair<Allocation, DeviceSet>> result;
    std::map<int, DeviceSet> group_devices;
    std::set<int> collective_groups;
    for (size_t id = 0; id < allocations_.size(); ++id) {
      int group = Find(static_cast<int>(id));
      group_devices[group].Merge(allocations_[id].devices);
      if (allocations_[id].in_collective) collective_groups.insert(group);
    }
    // Buffers only host collectives use (a host barrier's signal) run with every rank: the orchestrator does.
    for (int group : collective_groups) {
      if (group_devices[group].empty()) group_devices[group].all = true;
    }
    for (size_t id = 0; id < allocations_.size(); ++id) {
      const Allocation& a = allocations_[id];
      if (!a.viewed) {
        ThrowValueError("window buffer '" + a.name + "' is allocated but never viewed: make a typed view, pld.window(" +
                            a.name + ", shape, dtype=...), and pass it to a chip program, or remove the allocation",
                        a.span);
      }
      const DeviceSet& devices = group_devices[Find(static_cast<int>(id))];
      if (devices.empty()) {
        ThrowValueError("no chip program or host collective receives a view of window buffer '" + a.name +
                            "': its comm domain is the devices of the dispatches its views are passed to; pass a view "
                            "to a chip program with device=r, or remove the buffer",
                        a.span);
      }
      result.emplace_back(a, devices);
    }
    return result;
  }

  // The buffer a window expression views: a variable bound to a buffer or view, or an inline view.
  std::optional<int> AllocationOf(const ExprPtr& expr) const {
    if (IsOp(expr, "tensor.window")) return AllocationOf(ir::As<ir::Call>(expr)->args[0]);
    auto var = ir::As<ir::Var>(expr);
    if (!var) return std::nullopt;
    auto it = allocation_of_.find(var.get());
    if (it == allocation_of_.end()) return std::nullopt;
    return it->second;
  }

 private:
  void Allocate(const ir::VarPtr& var, const Span& span) {
    if (!loops_.empty()) {
      ThrowValueError("window buffer '" + var->name_hint +
                          "' is allocated inside a loop: window buffers are allocated once per host call, on every "
                          "rank of their domain; allocate it before the loop and reuse it (a fresh row per round, or "
                          "rising signal thresholds)",
                      span);
    }
    for (const Allocation& a : allocations_) {
      if (a.name == var->name_hint) {
        ThrowValueError("two window buffers are named '" + var->name_hint + "' (the first at " + a.span.ToString() +
                            "): a buffer is named by the variable it is assigned to; give each allocation its own name",
                        span);
      }
    }
    allocation_of_[var.get()] = static_cast<int>(allocations_.size());
    parent_.push_back(static_cast<int>(allocations_.size()));
    allocations_.push_back(Allocation{var->name_hint, span, false, false, DeviceSet{}});
  }

  void Alias(const ir::VarPtr& var, const ExprPtr& source) {
    if (auto id = AllocationOf(source)) allocation_of_[var.get()] = *id;
  }

  void Use(const ir::Call& call, const Span& span) {
    if (call.op->name == "system.dispatch") {
      Dispatch(call, span);
    } else if (IsHostCollective(call)) {
      std::vector<int> used;
      for (const ExprPtr& arg : call.args) {
        auto id = AllocationOf(arg);
        if (!id) continue;
        if (std::find(used.begin(), used.end(), *id) != used.end()) {
          ThrowValueError("pld." + call.op->name + " takes windows of different allocations, but two of its operands "
                              "view window buffer '" + allocations_[static_cast<size_t>(*id)].name +
                              "'; allocate the signal (and each data window) separately",
                          span);
        }
        if (!used.empty()) Union(used.front(), *id);
        used.push_back(*id);
        allocations_[static_cast<size_t>(*id)].in_collective = true;
      }
    }
  }

  void Dispatch(const ir::Call& call, const Span& span) {
    std::vector<int> windows;
    for (size_t i = 1; i < call.args.size(); ++i) {
      if (auto id = AllocationOf(call.args[i])) windows.push_back(*id);
    }
    if (windows.empty()) return;
    DeviceSet devices = DevicesOf(call, span);
    for (int id : windows) allocations_[static_cast<size_t>(id)].devices.Merge(devices);
  }

  bool IsWorldSize(const ExprPtr& expr) const {
    if (IsOp(expr, "system.world_size")) return true;
    auto var = ir::As<ir::Var>(expr);
    return var && world_vars_.count(var.get()) > 0;
  }

  DeviceSet DevicesOf(const ir::Call& call, const Span& span) const {
    const ExprPtr& device = call.args[0];
    DeviceSet set;
    if (auto value = ir::AsConstInt(device)) {
      set.devices.insert(*value);
      return set;
    }
    auto var = ir::As<ir::Var>(device);
    auto loop = var ? loop_of_.find(var.get()) : loop_of_.end();
    if (loop != loop_of_.end()) {
      const ir::ForStmt& l = *loop->second;
      auto start = ir::AsConstInt(l.start);
      auto step = ir::AsConstInt(l.step);
      if (start == 0 && step == 1 && IsWorldSize(l.stop)) {
        set.all = true;
        return set;
      }
      auto stop = ir::AsConstInt(l.stop);
      if (start && stop && step && *step > 0) {
        for (int64_t d = *start; d < *stop; d += *step) set.devices.insert(d);
        return set;
      }
    }
    std::string program = call.kwargs.Get<std::string>("program").value_or("?");
    ThrowValueError("device=" + ir::PrintNode(device) + " of the dispatch of '" + program +
                        "' passes window views, but the compiler cannot tell which devices it reaches, so it cannot "
                        "build their comm domain; use a constant, or the variable of a loop "
                        "`for r in pl.range(pld.world_size())`, `pl.range(N)` or `pl.range(a, b)` with constants",
                    span);
  }

  int Find(int id) {
    while (parent_[static_cast<size_t>(id)] != id) id = parent_[static_cast<size_t>(id)];
    return id;
  }
  void Union(int a, int b) { parent_[static_cast<size_t>(Find(a))] = Find(b); }

  std::vector<Allocation> allocations_;
  std::vector<int> parent_;
  std::unordered_map<const ir::Var*, int> allocation_of_;
  std::unordered_map<const ir::Var*, const ir::ForStmt*> loop_of_;
  std::set<const ir::Var*> world_vars_;
  std::set<const ir::Node*> named_allocations_;
  std::vector<const ir::Node*> loops_;
};

struct Domain {
  std::string name;
  DeviceSet devices;
};

// Sets the domain attributes on each allocation, view and host collective of one domain analysis.
class DomainAnnotator : public ir::IRMutator {
 public:
  DomainAnnotator(const DomainAnalysis& analysis, std::vector<Domain> domain_of)
      : analysis_(analysis), domain_of_(std::move(domain_of)) {}
  using IRMutator::Mutate_;

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    std::optional<int> id = analysis_.AllocationOf(node->var);
    auto call = OpCall(node->value);
    if (!id || !call) return node;
    return ir::AssignStmt::Make(node->var, Annotated(*call, domain_of_[static_cast<size_t>(*id)]), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    auto call = OpCall(node->expr);
    if (!call || !IsHostCollective(*call)) return node;
    for (const ExprPtr& arg : call->args) {
      if (auto id = analysis_.AllocationOf(arg)) {
        return ir::EvalStmt::Make(Annotated(*call, domain_of_[static_cast<size_t>(*id)]), node->span);
      }
    }
    return node;
  }

 private:
  static ExprPtr Annotated(const ir::Call& call, const Domain& domain) {
    ir::Attrs attrs = call.attrs;
    attrs.Set(kCommDomainAttr, domain.name);
    if (!domain.devices.all) {
      attrs.Set(kCommDevicesAttr, std::vector<int64_t>(domain.devices.devices.begin(), domain.devices.devices.end()));
    }
    return ir::Call::Make(call.op, call.args, call.kwargs, call.type, call.span, std::move(attrs));
  }

  const DomainAnalysis& analysis_;
  std::vector<Domain> domain_of_;
};

ir::FunctionPtr MaterializeDomains(const ir::FunctionPtr& function) {
  DomainAnalysis analysis;
  analysis.VisitFunction(function);
  auto allocations = analysis.Result();
  if (allocations.empty()) return function;
  std::map<DeviceSet, std::string> names;
  std::vector<Domain> domain_of;
  for (const auto& [allocation, devices] : allocations) {
    auto [it, added] = names.emplace(devices, "comm_d" + std::to_string(names.size()));
    domain_of.push_back(Domain{it->second, devices});
  }
  return DomainAnnotator(analysis, std::move(domain_of)).VisitFunction(function);
}

}  // namespace

ir::ProgramPtr MaterializeCommDomainScopesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ops::IsHostOrchestrator(*f) ? MaterializeDomains(f) : f;
  });
}

}  // namespace pypto::passes
