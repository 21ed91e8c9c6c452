// pl.split: the AIV kernel of a mixed function runs on both vector lanes,
// each on its half of every vector tile.
#pragma once

#include <string>

#include "pypto/ir/ir.h"

namespace pypto::passes::mixed {

// `body` (an AIV kernel's) rewritten for one lane of `mode` (UpDown: rows,
// LeftRight: columns): every Vec tile longer than 1 along the split axis is
// halved; loads and stores of such tiles move by `lane * half` along it, with
// lane = tile.get_subblock_idx(). Ops whose result depends on the other
// half (reductions along the axis, slicing, reshaping, element access) are a
// ValueError naming the op and the line, as are odd extents.
ir::StmtPtr SplitVectorWork(const ir::StmtPtr& body, ir::SplitMode mode, const std::string& function,
                            const std::string& kernel);

}  // namespace pypto::passes::mixed
