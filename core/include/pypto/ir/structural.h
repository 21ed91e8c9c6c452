// Structural equality and hashing of IR.
//
// Two nodes are structurally equal when they have the same kind and equal
// fields, recursively. Variables compare by identity, except that binding
// sites (assign targets, loop vars, iter_args, return vars, params) always
// map the two sides' variables onto each other, so independently built but
// identical functions compare equal. With `map_free_vars`, free variables
// are also mapped (consistently, one to one). Names, spans and comments are
// ignored. Equal nodes have equal hashes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pypto/ir/ir.h"

namespace pypto::ir {

bool StructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);
uint64_t StructuralHash(const NodePtr& node, bool map_free_vars = false);

// Where two nodes first differ, for test failures: a path of field names and
// both sides printed ("functions[0].body.stmts[2].value.args[1]: x vs y").
// nullopt when they are equal.
std::optional<std::string> StructuralDiff(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);

// Throws a ValueError with the StructuralDiff when the nodes differ.
void AssertStructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);

}  // namespace pypto::ir
