// The type of a call of a program function at its call site. A callee's
// return types name its own parameters (`-> Tensor[[n, 64], FP32]`, with `n`
// a scalar parameter or a dim of a parameter's type); at the call site they
// mean what the call passes for them.
#pragma once

#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::ir {

// `return_types` with every scalar parameter replaced by its argument and
// every dim variable of a parameter's type replaced by the argument type's
// dim in the same position.
std::vector<TypePtr> CallSiteReturnTypes(const std::vector<VarPtr>& params, const std::vector<TypePtr>& return_types,
                                         const std::vector<ExprPtr>& args);

// One return type is the call's type; several a tuple; none leaves it unknown.
TypePtr CallTypeOf(const std::vector<TypePtr>& return_types);

}  // namespace pypto::ir
