// ScriptWriter: a whole Program -> one standalone PyTorch script: the
// prelude (the ops' semantics, prelude.py), one Python function per IR
// function (op by op, each line commented with the IR op and the user's
// source line), and a main() that runs the entry on saved or random inputs.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"
#include "python_spelling.h"

namespace pypto::torch_codegen {

inline constexpr const char* kBackendName = "torch";

class ScriptWriter {
 public:
  explicit ScriptWriter(const ir::ProgramPtr& program);
  // The script; a CodegenError for what it cannot model (naming op and line).
  std::string Write();

 private:
  // Where a yield in the statements being written assigns: a loop's
  // iter_args or an if's return_vars.
  using YieldTargets = std::vector<ir::VarPtr>;

  void WriteHeader();
  void WriteFunction(const ir::FunctionPtr& function);
  // The start of a Group function: its kernels run at once, as one cluster
  // task (prelude: run_cluster); the calls in its body then read their results.
  void WriteClusterRun(const ir::Function& group);
  // Whether a kernel the Group calls runs on the AIC (else on an AIV lane);
  // a CodegenError unless it is a kernel taking the Group's parameters (the
  // kernels start together, so none can take a value another computes).
  bool MemberOnAic(const ir::Function& group, const ir::Call& call);
  void WriteMain();

  void WriteBody(const ir::StmtPtr& body);
  void WriteStmt(const ir::StmtPtr& stmt);
  void WriteAssign(const ir::AssignStmt& stmt);
  void WriteFor(const ir::ForStmt& stmt);
  void WriteWhile(const ir::WhileStmt& stmt);
  void WriteIf(const ir::IfStmt& stmt);
  void WriteScope(const ir::ScopeStmt& stmt);
  // A pl.split_aiv region: its body once per AIV lane, recording each lane's
  // value of the variables a tile.aic_gather after it joins.
  void WriteSplitAiv(const ir::ScopeStmt& stmt, const std::string& what);
  void WriteYield(const ir::YieldStmt& stmt);
  void WriteReturn(const ir::ReturnStmt& stmt);
  void InitIterArgs(const std::vector<ir::IterArgPtr>& iter_args, const Span& span);
  void BindReturnVars(const std::vector<ir::VarPtr>& return_vars, const std::vector<ir::IterArgPtr>& iter_args);

  // The Python expression of `expr`. Op and function calls inside it are
  // written first, one per line into temporaries, so that every op gets its
  // own commented line.
  std::string Expr(const ir::ExprPtr& expr, const Span& span);
  std::string ScalarBinary(const ir::BinaryExpr& e, const Span& span);
  std::string ScalarUnary(const ir::UnaryExpr& e, const Span& span);
  std::string ExprList(const std::vector<ir::ExprPtr>& exprs, const Span& span);
  // The text of a call (`tile_add(TileSpec(...), a, b)`), without writing it.
  std::string CallText(const ir::Call& call, const Span& span);
  std::string OpCallText(const ir::Call& call, const Span& span);
  std::string FunctionCallText(const ir::Call& call, const Span& span);
  std::string SubmitText(const ir::Submit& submit, const Span& span);
  // An argument of a tensor op: a tensor whose type is valid only in part
  // becomes valid_view(t, valid, pad), so the op reads only that region.
  std::string TensorOperand(const ir::ExprPtr& arg, const Span& span);
  // The argument of tile.aic_gather: the list of both lanes' values of a
  // variable its pl.split_aiv region defines.
  std::string LaneValues(const ir::ExprPtr& arg, const Span& span);
  std::string Kwarg(const ir::Call& call, const std::string& name, const ir::AttrValue& value, const Span& span);
  // Writes `target = <call>` (or the bare call when target is empty); a
  // call launched on several blocks (core_num) runs once per block.
  void WriteCall(const std::string& target, const ir::ExprPtr& value, const Span& span);

  // The result type an op gets as its first argument (TileSpec, TensorSpec or None).
  std::string TypeSpec(const ir::TypePtr& type, const std::string& op, const Span& span);
  std::string DType(ir::DataType dtype, const std::string& op, const Span& span);

  std::string Name(const ir::VarPtr& var);
  std::string Temporary();
  std::string Comment(const std::string& what, const Span& span) const;
  void Line(const std::string& text);
  [[noreturn]] void Fail(const std::string& op, const std::string& message, const Span& span) const;

  ir::ProgramPtr program_;
  std::string prelude_;
  std::set<std::string> prelude_globals_;
  std::map<std::string, std::string> function_names_;  // IR name -> Python name
  ir::FunctionPtr function_;                             // being written
  NameTable names_{{}};
  std::map<const ir::Var*, std::string> var_names_;
  std::vector<YieldTargets> yield_targets_;
  // In a Group function: each kernel call -> the expression of its result.
  std::map<const ir::Call*, std::string> member_results_;
  // The variables whose lanes' values a tile.aic_gather of the function joins,
  // and for those a region defined (written), the Python list of their values by lane.
  std::set<const ir::Var*> gathered_;
  std::map<const ir::Var*, std::string> lane_values_;
  int temporaries_ = 0;
  int indent_ = 0;
  std::ostringstream out_;
};

}  // namespace pypto::torch_codegen
