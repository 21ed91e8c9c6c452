#include "lowering_builder.h"

#include <utility>

#include "pypto/ops/registry.h"

namespace pypto::passes {

ir::ExprPtr LoweringBuilder::Make(const std::string& op, std::vector<ir::ExprPtr> args, ir::Attrs kwargs) const {
  return ops::OpRegistry::Global().Create(op, std::move(args), std::move(kwargs), span_);
}

ir::ExprPtr LoweringBuilder::Emit(const std::string& step, const std::string& op, std::vector<ir::ExprPtr> args,
                                  ir::Attrs kwargs) {
  ir::ExprPtr value = Make(op, std::move(args), std::move(kwargs));
  const int use = ++step_uses_[step];
  std::string name = result_name_ + "_" + step + (use == 1 ? "" : std::to_string(use));
  auto var = ir::Var::Make(std::move(name), value->type, span_);
  stmts_.push_back(ir::AssignStmt::Make(var, value, span_));
  return var;
}

ir::ExprPtr LoweringBuilder::Float(double value) const {
  return ir::ConstFloat::Make(static_cast<float>(value), ir::DataType::FP32, span_);
}

ir::ExprPtr LoweringBuilder::Int(int64_t value) const { return ir::ConstInt::Make(value, ir::DataType::INDEX, span_); }

std::vector<ir::StmtPtr> LoweringBuilder::Finish(const ir::VarPtr& result, const ir::ExprPtr& value) {
  std::vector<ir::StmtPtr> stmts = std::move(stmts_);
  stmts_.clear();
  stmts.push_back(ir::AssignStmt::Make(result, value, span_));
  return stmts;
}

}  // namespace pypto::passes
