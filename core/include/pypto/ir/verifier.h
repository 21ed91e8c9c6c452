// The IR verifier: checks the invariants every pass may rely on and reports
// each violation with the function, the node and its source span.
#pragma once

#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ir {

struct Diagnostic {
  enum class Severity { kError, kWarning };
  Severity severity = Severity::kError;
  std::string rule;      // "SSAVerify", "TypeCheck", ...
  std::string function;  // enclosing function name
  std::string node;      // node kind, e.g. "AssignStmt"
  std::string message;   // what is wrong and how to fix it
  Span span;

  // "file.py:3:5: error: [SSAVerify] in function 'f': ... (AssignStmt)"
  std::string ToString() const;
};

struct VerifyOptions {
  // Check SSA form (single assignment, yields matching iter_args/return_vars).
  bool ssa = true;
  // Re-run type deduction of every op call and compare with the recorded type.
  bool type_check = true;
};

std::vector<Diagnostic> Verify(const ProgramPtr& program, const VerifyOptions& options = {});
std::vector<Diagnostic> VerifyFunction(const FunctionPtr& function, const VerifyOptions& options = {});
// Throws a VerificationError listing every error (warnings are not fatal).
void VerifyOrThrow(const ProgramPtr& program, const VerifyOptions& options = {});

}  // namespace pypto::ir
