// FlattenCallExpr: binds every call that is not a statement's top-level value
// to a fresh variable assigned right before the statement. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class FlattenCallExprPass : public pass::Pass {
 public:
  static constexpr const char* kName = "FlattenCallExpr";
  static constexpr const char* kDescription =
      "Bind calls nested in arguments, conditions, loop bounds, yields and returns to fresh variables";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // The temporaries are single assignments; the pass keeps SSA form.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }
  pass::PropertySet produced() const override { return {pass::IRProperty::NoNestedCalls}; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// The rewrite itself; returns `program` unchanged when no call is nested.
ir::ProgramPtr FlattenCallExpr(const ir::ProgramPtr& program);

}  // namespace pypto::passes
