// Test helper: the verifier's errors for a program as one string ("" when the
// program is valid), so a failing EXPECT shows every diagnostic.
#pragma once

#include <string>

#include "pypto/ir/verifier.h"

namespace pypto::test {

inline std::string AllVerifierErrors(const ir::ProgramPtr& program, const ir::VerifyOptions& options = {}) {
  std::string errors;
  for (const auto& d : ir::Verify(program, options)) {
    if (d.severity == ir::Diagnostic::Severity::kError) errors += d.ToString() + "\n";
  }
  return errors;
}

}  // namespace pypto::test
