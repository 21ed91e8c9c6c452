// Copying a statement so that the copy can sit beside the original (loop
// unrolling, inlining) while the program stays in SSA form.
#pragma once

#include <string>
#include <unordered_map>

#include "pypto/ir/ir.h"

namespace pypto::ir {

using VarSubstitutions = std::unordered_map<const Var*, ExprPtr>;

// A copy of `stmt` in which every variable it defines is a fresh Var named
// `<name><name_suffix>` and every use of a variable in `substitutions` is
// replaced by its expression. Types are rewritten too, because dims may name
// replaced or redefined variables.
StmtPtr CopyWithFreshDefinitions(const StmtPtr& stmt, VarSubstitutions substitutions, const std::string& name_suffix);

}  // namespace pypto::ir
