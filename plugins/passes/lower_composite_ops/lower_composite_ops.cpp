#include "lower_composite_ops.h"

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lowering_builder.h"
#include "pypto/ir/function.h"
#include "pypto/ir/mutator.h"

namespace pypto::passes {

using ir::As;
using ir::Ref;
using ir::StmtPtr;

namespace {

// The composite ops, by name, and how each is computed. A new composite op
// is a rule and a row here.
const CompositeRule* FindRule(const ir::ExprPtr& value) {
  static const std::unordered_map<std::string, CompositeRule> kRules = {
      {"tile.sin", &LowerSine},
      {"tile.cos", &LowerCosine},
  };
  auto call = As<ir::Call>(value);
  if (!call || call->is_function_call()) return nullptr;
  auto it = kRules.find(call->op->name);
  return it == kRules.end() ? nullptr : &it->second;
}

class CompositeOpLowerer : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    const CompositeRule* rule = FindRule(node->value);
    if (!rule) return IRMutator::Mutate_(node);
    auto call = As<ir::Call>(VisitExpr(node->value));
    LoweringBuilder builder(node->var->name_hint, node->span);
    ir::ExprPtr value = (*rule)(*call, builder);
    return ir::SeqStmts::Make(builder.Finish(node->var, value), node->span);
  }

  // A composite op whose value nobody reads computes nothing.
  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    if (!FindRule(node->expr)) return IRMutator::Mutate_(node);
    return ir::SeqStmts::Make({}, node->span);
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }
};

}  // namespace

ir::ProgramPtr LowerCompositeOpsPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? CompositeOpLowerer().VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
