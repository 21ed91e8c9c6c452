// Shared by the pass tests: short builders for IR and
// checks of the programs the passes produce.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "pypto/ir/structural.h"
#include "pypto/ir/verifier.h"
#include "pypto/ir/visitor.h"
#include "support/verifier_errors.h"

namespace pypto::test {

using namespace pypto::ir;  // NOLINT: test brevity

inline TypePtr Scalar(DataType dtype) { return ScalarType::Make(dtype); }
inline VarPtr IndexVar(const std::string& name) { return Var::Make(name, Scalar(DataType::INDEX)); }
inline VarPtr ScalarVar(const std::string& name, DataType dtype) { return Var::Make(name, Scalar(dtype)); }

inline ExprPtr Bin(BinaryOp op, const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(op, a, b); }
inline ExprPtr Un(UnaryOp op, const ExprPtr& a) { return UnaryExpr::Make(op, a); }
inline ExprPtr CastTo(const ExprPtr& a, DataType dtype) { return UnaryExpr::MakeCast(a, dtype); }

// A call of `op_name` (registered or not) whose result has type `type`.
inline ExprPtr CallOp(const std::string& op_name, std::vector<ExprPtr> args,
                      TypePtr type = UnknownType::Make()) {
  return Call::Make(Op::Get(op_name), std::move(args), {}, std::move(type));
}

inline StmtPtr Assign(const VarPtr& var, const ExprPtr& value) { return AssignStmt::Make(var, value); }
inline StmtPtr Eval(const ExprPtr& e) { return EvalStmt::Make(e); }
inline StmtPtr Return(std::vector<ExprPtr> values) { return ReturnStmt::Make(std::move(values)); }
inline StmtPtr Yield(std::vector<ExprPtr> values) { return YieldStmt::Make(std::move(values)); }
inline StmtPtr Seq(std::vector<StmtPtr> stmts) { return SeqStmts::Make(std::move(stmts)); }

inline ProgramPtr ProgramOf(std::vector<VarPtr> params, StmtPtr body, std::vector<TypePtr> returns = {}) {
  auto f = Function::Make("main", FunctionType::Opaque, std::move(params), {}, std::move(returns), std::move(body));
  return Program::Make("test", {f});
}
inline StmtPtr BodyOf(const ProgramPtr& program) { return program->functions.at(0)->body; }

// Structural equality (binding sites map onto each other); a failure shows
// where the trees first differ.
#define EXPECT_SAME_IR(actual, expected) \
  EXPECT_NO_THROW(::pypto::ir::AssertStructuralEqual((actual), (expected)))

// The verifier's structural rules (SSA, scoping, yields, break/continue,
// returns). Type checking is off: the tests call unregistered ops.
inline std::string VerifierErrors(const ProgramPtr& program) {
  VerifyOptions options;
  options.type_check = false;
  options.placement = false;
  return AllVerifierErrors(program, options);
}

#define EXPECT_VALID_IR(program) EXPECT_EQ(::pypto::test::VerifierErrors(program), "")

// Every variable the program defines, in definition order.
class DefCollector : public IRVisitor {
 public:
  std::vector<VarPtr> defs;
  void VisitVarDef(const VarPtr& var) override {
    defs.push_back(var);
    IRVisitor::VisitVarDef(var);
  }
};

// True when no variable is defined twice (the SSA single-definition rule).
inline bool DefinesEachVarOnce(const ProgramPtr& program) {
  DefCollector collector;
  collector.VisitProgram(program);
  std::unordered_set<const Var*> seen;
  for (const auto& v : collector.defs) {
    if (!seen.insert(v.get()).second) return false;
  }
  return true;
}

}  // namespace pypto::test
