#include "synthesize_allreduce_signals.h"

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::BinaryExpr;
using ir::BinaryOp;
using ir::ConstInt;
using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;

namespace {

ExprPtr Int64(int64_t value) { return ConstInt::Make(value, DataType::INT64); }

ExprPtr Mul(const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(BinaryOp::Mul, a, b); }

// A host allreduce whose signal the user left to the compiler: `data` alone.
bool LacksSignal(const ExprPtr& value) {
  auto call = ir::As<ir::Call>(value);
  return call && !call->is_function_call() && call->op->name == "tensor.allreduce" && call->args.size() == 1;
}

// The signal's shape (spec §7.1) in terms of `world`: a mesh allreduce's barriers use one cell per sender
// and block; a ring's use a row per round (2 * (P - 1) rounds) and a cell per sender, plus a spare row.
std::vector<ExprPtr> SignalShape(const ir::Call& call, const ExprPtr& world) {
  bool ring = call.kwargs.Get<std::string>("mode").value_or("mesh") == "ring";
  if (ring) return {BinaryExpr::Make(BinaryOp::Sub, Mul(Int64(2), world), Int64(1)), world};
  return {world, Int64(call.kwargs.Get<int64_t>("core_num").value_or(1))};
}

class SignalSynthesizer : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override { return InLoop(node); }
  StmtPtr Mutate_(const Ref<ir::WhileStmt>& node) override { return InLoop(node); }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    if (!LacksSignal(node->value)) return node;
    auto [setup, call] = WithSignal(ir::As<ir::Call>(node->value), node->span);
    setup.push_back(ir::AssignStmt::Make(node->var, call, node->span));
    return ir::SeqStmts::Make(std::move(setup), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    if (!LacksSignal(node->expr)) return node;
    auto [setup, call] = WithSignal(ir::As<ir::Call>(node->expr), node->span);
    setup.push_back(ir::EvalStmt::Make(call, node->span));
    return ir::SeqStmts::Make(std::move(setup), node->span);
  }

 private:
  template <class Loop>
  StmtPtr InLoop(const Ref<Loop>& node) {
    ++loop_depth_;
    StmtPtr result = MutateChildren(node);
    --loop_depth_;
    return result;
  }

  // `ranks = world_size(); buf = alloc_window_buffer(4 * rows * cols); sig = window(buf, [rows, cols], INT32)`
  // and the call with `sig` as its signal. The rank count is a variable so that the types name it, not a call.
  std::pair<std::vector<StmtPtr>, ExprPtr> WithSignal(const Ref<ir::Call>& call, const Span& span) {
    if (loop_depth_ > 0) {
      ThrowValueError(
          "pld.tensor.allreduce without a signal window inside a loop: the compiler allocates a signal per call, and "
          "window buffers are allocated once, before any loop; allocate one yourself before the loop, "
          "sig_buf = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32), and pass a view of it: "
          "pld.tensor.allreduce(data, pld.window(sig_buf, [pld.world_size(), 1], dtype=pl.INT32), ...)",
          span);
    }
    const auto& ops = ops::OpRegistry::Global();
    std::string name = FreshName(ir::IsA<ir::Var>(call->args[0]) ? ir::As<ir::Var>(call->args[0])->name_hint
                                                                   : std::string("allreduce"));
    auto world_call = ops.Create("system.world_size", {}, {}, span);
    auto world = ir::Var::Make(name + "_signal_ranks", world_call->type, span);
    std::vector<ExprPtr> shape = SignalShape(*call, world);
    ExprPtr bytes = Mul(Mul(Int64(4), shape[0]), shape[1]);
    auto buffer_call = ops.Create("tensor.alloc_window_buffer", {bytes}, {}, span);
    auto buffer = ir::Var::Make(name + "_signal_buffer", buffer_call->type, span);
    auto view_call = ops.Create("tensor.window", {buffer, ir::MakeTuple::Make(shape, span)},
                                ir::Attrs{{"dtype", DataType::INT32}}, span);
    auto signal = ir::Var::Make(name + "_signal", view_call->type, span);
    auto with_signal = ir::Call::Make(call->op, {call->args[0], signal}, call->kwargs, call->type, call->span,
                                      call->attrs);
    return {{ir::AssignStmt::Make(world, world_call, span), ir::AssignStmt::Make(buffer, buffer_call, span),
             ir::AssignStmt::Make(signal, view_call, span)},
            with_signal};
  }

  // Window buffers are named by their variables: each synthesized one gets a name of its own (gw, gw_1, ...).
  std::string FreshName(const std::string& data) {
    int n = used_[data]++;
    return n == 0 ? data : data + "_" + std::to_string(n);
  }

  int loop_depth_ = 0;
  std::map<std::string, int> used_;
};

}  // namespace

ir::ProgramPtr SynthesizeAllReduceSignalsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ops::IsHostOrchestrator(*f) ? SignalSynthesizer().VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
