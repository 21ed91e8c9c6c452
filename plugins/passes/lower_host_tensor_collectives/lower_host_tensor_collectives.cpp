#include "lower_host_tensor_collectives.h"

#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;

namespace {

// Set by MaterializeCommDomainScopes on each host collective.
constexpr const char* kCommDomainAttr = "comm_domain";
constexpr const char* kCommDevicesAttr = "comm_devices";
// The program name of a collective's per-device part: the pld_host backend runs it as a host builtin.
constexpr const char* kBuiltinPrefix = "builtin.";

Ref<ir::Call> HostCollective(const ExprPtr& value) {
  auto call = value ? ir::As<ir::Call>(value) : nullptr;
  if (!call || call->is_function_call()) return nullptr;
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call->op->name);
  return def && def->placement() == ops::Placement::kInCoreOrHost ? call : nullptr;
}

// `system.dispatch(device, *args, program="builtin.<op>")`; the collective's options and domain travel
// in the attrs.
StmtPtr BuiltinDispatch(const ir::Call& collective, const ExprPtr& device) {
  std::vector<ExprPtr> args{device};
  args.insert(args.end(), collective.args.begin(), collective.args.end());
  auto dispatch = ops::OpRegistry::Global().Create(
      "system.dispatch", std::move(args), ir::Attrs{{"program", std::string(kBuiltinPrefix) + collective.op->name}},
      collective.span);
  ir::Attrs attrs = collective.attrs;
  for (const auto& [key, value] : collective.kwargs) attrs.Set(key, value);
  return ir::EvalStmt::Make(
      ir::Call::Make(dispatch->op, dispatch->args, dispatch->kwargs, dispatch->type, dispatch->span, attrs),
      collective.span);
}

// The host ring (spec §7.2) reduces FP32 with Sum on one block; the mesh and the kernel's composite ring take
// the other ops and dtypes.
void CheckHostRing(const ir::Call& collective, const Span& span) {
  bool ring = collective.kwargs.Get<std::string>("mode").value_or("mesh") == "ring";
  if (collective.op->name != "tensor.allreduce" || !ring) return;
  auto data = ir::As<ir::TensorType>(collective.args[0]->type);
  int64_t op = collective.kwargs.Get<int64_t>("op").value_or(0);
  if (op == 0 && data && data->dtype == DataType::FP32) return;
  std::string dtype = data ? std::string(data->dtype.name()) : "?";
  ThrowValueError("pld.tensor.allreduce(mode='ring') in a host orchestrator reduces FP32 windows with "
                  "pld.ReduceOp.Sum only, this one is " + dtype + " with op " + std::to_string(op) +
                      "; use mode='mesh' for other ops and dtypes",
                  span);
}

// One dispatch per device of the collective's domain.
StmtPtr PerDevice(const ir::Call& collective, const Span& span) {
  CheckHostRing(collective, span);
  if (!collective.attrs.Has(kCommDomainAttr)) {
    ThrowValueError("LowerHostTensorCollectives: the host collective " + collective.op->name +
                        " has no comm domain; run MaterializeCommDomainScopes first (the host pipeline does)",
                    span);
  }
  if (auto devices = collective.attrs.Get<std::vector<int64_t>>(kCommDevicesAttr)) {
    std::vector<StmtPtr> stmts;
    for (int64_t d : *devices) stmts.push_back(BuiltinDispatch(collective, ir::ConstInt::Make(d, DataType::INT64)));
    return ir::MakeSeq(std::move(stmts), span);
  }
  // INDEX, as the variable of a pl.range loop is.
  auto device = ir::Var::Make("device", ir::ScalarType::Make(DataType::INDEX), span);
  ExprPtr world = ops::OpRegistry::Global().Create("system.world_size", {}, {}, span);
  return ir::ForStmt::Make(device, ir::ConstInt::Make(0, DataType::INT64), world, ir::ConstInt::Make(1, DataType::INT64),
                           {}, ir::SeqStmts::Make({BuiltinDispatch(collective, device)}, span), {},
                           ir::ForKind::Sequential, {}, span);
}

class CollectiveLowering : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }

  // `data_1 = allreduce(data, sig)`: the dispatches, then `data_1 = data` (the window, rebound).
  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto collective = HostCollective(node->value);
    if (!collective) return node;
    const ops::OpDef& def = *ops::OpRegistry::Global().Find(collective->op->name);
    auto window = collective->args.at(static_cast<size_t>(def.output_reuses_input().value_or(0)));
    std::vector<StmtPtr> stmts = ir::Flatten(PerDevice(*collective, node->span));
    stmts.push_back(ir::AssignStmt::Make(node->var, window, node->span));
    return ir::MakeSeq(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    auto collective = HostCollective(node->expr);
    return collective ? PerDevice(*collective, node->span) : node;
  }
};

}  // namespace

ir::ProgramPtr LowerHostTensorCollectivesPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ops::IsHostOrchestrator(*f) ? CollectiveLowering().VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
