// Prints IR as the Python DSL (`@pl.program` class form). The output is
// stable (same IR, same text) and is what the front end's parser reads back.
#pragma once

#include <string>

#include "pypto/ir/ir.h"

namespace pypto::ir {

struct PrintOptions {
  std::string prefix = "pl";  // module alias used for the DSL
  // Annotate every assignment with its type (verbose), or only signatures.
  bool concise = false;
};

std::string PrintProgram(const ProgramPtr& program, const PrintOptions& options = {});
// A function alone, as it would appear inside `@pl.program` (with `self`).
std::string PrintFunction(const FunctionPtr& function, const PrintOptions& options = {});
// Any node: a statement (indented from column 0), an expression, or a type.
std::string PrintNode(const NodePtr& node, const PrintOptions& options = {});

}  // namespace pypto::ir
