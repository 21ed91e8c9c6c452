// Chains of native casts: how a cast the platform has no single instruction
// for is done through intermediate dtypes, found by a breadth-first search
// over the platform's `casts:` table.
#pragma once

#include <optional>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/dtype.h"

namespace pypto::passes {

// The dtypes a cast from `from` to `to` passes through, each step one native
// cast, ending with `to` (a single element: the cast is native). nullopt
// when no chain of native casts exists. Among chains of the fewest steps the
// pass takes the one whose intermediate dtypes lose the least of the source's
// values (CastLoss), then the one whose intermediate dtypes come first in the
// platform's `dtypes:` list.
std::optional<std::vector<ir::DataType>> NativeCastChain(const backend::Platform& platform, ir::DataType from,
                                                         ir::DataType to);

// How much of the values of `source` an intermediate dtype loses:
// 0 holds every value exactly, 1 holds the range but rounds some values,
// 2 cannot hold the range (values overflow or wrap).
int CastLoss(ir::DataType source, ir::DataType intermediate);

// The dtypes `from` casts to in one native instruction, in table order.
std::vector<ir::DataType> DirectCastTargets(const backend::Platform& platform, ir::DataType from);
// The dtypes `from` reaches through chains of two or more native casts, in
// the order of the platform's `dtypes:` list.
std::vector<ir::DataType> ChainedCastTargets(const backend::Platform& platform, ir::DataType from);

}  // namespace pypto::passes
