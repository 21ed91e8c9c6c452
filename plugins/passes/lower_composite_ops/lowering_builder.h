// What a composite-op rule writes with: each primitive op it emits becomes
// one assignment to a new variable named after the composite's result.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/expr.h"
#include "pypto/ir/stmt.h"

namespace pypto::passes {

class LoweringBuilder {
 public:
  LoweringBuilder(std::string result_name, Span span) : result_name_(std::move(result_name)), span_(span) {}

  // `op(args, kwargs)`, type-checked by the op registry.
  ir::ExprPtr Make(const std::string& op, std::vector<ir::ExprPtr> args, ir::Attrs kwargs = {}) const;
  // The same, bound to `<result>_<step>`; a step name used again gets a
  // count (`x_p2`).
  ir::ExprPtr Emit(const std::string& step, const std::string& op, std::vector<ir::ExprPtr> args,
                   ir::Attrs kwargs = {});

  // An FP32 constant: `value` rounded to FP32, so the IR shows the number
  // the instruction computes with.
  ir::ExprPtr Float(double value) const;
  ir::ExprPtr Int(int64_t value) const;

  // The statements emitted so far and a last one binding `result` to `value`.
  std::vector<ir::StmtPtr> Finish(const ir::VarPtr& result, const ir::ExprPtr& value);

 private:
  std::string result_name_;
  Span span_;
  std::map<std::string, int> step_uses_;
  std::vector<ir::StmtPtr> stmts_;
};

// A rule: the value of `call` computed from primitive ops through `builder`;
// the expression it returns (the last op, unbound) becomes the value of the
// composite's own result.
using CompositeRule = ir::ExprPtr (*)(const ir::Call& call, LoweringBuilder& builder);

ir::ExprPtr LowerSine(const ir::Call& call, LoweringBuilder& builder);
ir::ExprPtr LowerCosine(const ir::Call& call, LoweringBuilder& builder);

}  // namespace pypto::passes
