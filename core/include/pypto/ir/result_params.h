// Which parameter's buffer each result of a function is. A kernel cannot
// allocate global memory, so a tensor it returns is one of its parameters:
// the parameter itself, a view of it, or the result of an op that writes into
// it in place (tensor.assemble, tile.store). Callers use this to follow a
// buffer through kernel calls.
#pragma once

#include <vector>

#include "pypto/ir/function.h"

namespace pypto::ir {

// One entry per returned value: the index of the parameter whose buffer it is,
// or -1 when the value is not traced to a parameter through the statements of
// the function's top-level body.
std::vector<int> ResultParams(const Function& function);

}  // namespace pypto::ir
