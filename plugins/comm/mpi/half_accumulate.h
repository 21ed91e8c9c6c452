// Atomic FP16 / BF16 add into a peer's window. MPI has no half-precision
// types, so each aligned 32-bit word holding target elements is updated with
// an MPI_Compare_and_swap loop on MPI_INT32_T; the sum is computed in FP32
// and rounded to nearest even, as the simulated vector unit does.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>

#include "pypto/ir/dtype.h"

namespace pypto::comm_mpi {

using MpiCheck = std::function<void(int rc, const std::string& what)>;

// Adds `bytes` bytes of `dtype` elements from `src` into `win` of `peer` at
// byte `offset` (2-byte aligned) of its aligned base, which lies `pad` bytes
// into its MPI allocation. Words are aligned relative to that base; the
// window must extend to the 4-byte boundary past the region (windows are
// rounded up to 64 bytes).
void AccumulateHalfRow(MPI_Win win, int peer, MPI_Aint pad, int64_t offset, const char* src, int64_t bytes,
                       ir::DataType dtype, const MpiCheck& check);

}  // namespace pypto::comm_mpi
