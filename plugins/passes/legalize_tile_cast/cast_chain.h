// Chains of native casts: how a cast the platform has no single instruction
// for is done through intermediate dtypes, found by a search over the
// platform's `casts:` table.
#pragma once

#include <optional>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/dtype.h"

namespace pypto::passes {

// The dtypes a cast from `from` to `to` passes through, each step one native
// cast, ending with `to` (a single element: the cast is native). nullopt
// when no chain of native casts exists. Of all chains the pass takes the one
// that computes the cast most faithfully: fewest hops that change a value
// the cast itself would keep (wrap, saturate, or round it coarser than the
// target does), then fewest hops that round (a value rounded twice can end
// one off), then fewest steps, then intermediate dtypes that lose the least
// of the source's values (CastLoss), then intermediate dtypes listed first
// in the platform's `dtypes:`.
std::optional<std::vector<ir::DataType>> NativeCastChain(const backend::Platform& platform, ir::DataType from,
                                                         ir::DataType to);

// How the pass performs a cast. Usually `chain` alone: the native casts
// from the source to the target (empty: the cast is an identity). An
// integer cast that must wrap (INT32 -> INT8), where every chain would
// saturate or round some value instead, is done in three parts: `chain`
// leads exactly to the integer dtype `wrap_in` (empty: `wrap_in` is the
// source dtype), which holds both dtypes' ranges; there the value wraps into
// the target's range with bitwise ops; `after_wrap` leads exactly on to the
// target, every value now being one the target holds.
struct CastPlan {
  std::vector<ir::DataType> chain;
  std::optional<ir::DataType> wrap_in = std::nullopt;
  std::vector<ir::DataType> after_wrap = {};
};

// The plan for a cast from `from` to `to`; nullopt when no chain of native
// casts exists.
std::optional<CastPlan> PlanCast(const backend::Platform& platform, ir::DataType from, ir::DataType to);

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
