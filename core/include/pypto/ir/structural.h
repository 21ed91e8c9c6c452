// Structural equality and hashing of IR.
//
// Two nodes are structurally equal when they have the same kind and equal
// fields, recursively. Variables compare by identity, except that binding
// sites (assign targets, loop vars, iter_args, return vars, params) always
// map the two sides' variables onto each other, so independently built but
// identical functions compare equal. With `map_free_vars`, free variables
// (used before any binding site, such as MemRefs and dynamic dims) are also
// mapped. Mapping is one to one and needs equal kinds and equal fields (type,
// IterArg init value, MemRef fields). Names, spans and comments are ignored.
// Two identical pointers at the root are equal; below the root, a shared
// subtree is still compared, because the variable correspondence can give it
// different meanings on the two sides.
//
// Equal nodes have equal hashes: bound variables hash by the order of their
// first binding, free ones by unique_id (or by order with `map_free_vars`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pypto/ir/ir.h"

namespace pypto::ir {

bool StructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);
uint64_t StructuralHash(const NodePtr& node, bool map_free_vars = false);

// Where two nodes first differ, for test failures: a path of field names and
// both sides described, plus why when variables disagree
// ("functions[0].body.stmts[2].value.args[1]: Var 'x' vs Var 'y' (...)";
// the path is "<root>" at the root). nullopt when they are equal.
std::optional<std::string> StructuralDiff(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);

// Throws a ValueError with the StructuralDiff when the nodes differ.
void AssertStructuralEqual(const NodePtr& a, const NodePtr& b, bool map_free_vars = false);

}  // namespace pypto::ir
