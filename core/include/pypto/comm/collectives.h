// The pld.tensor.* collectives on window tensors, built on the running
// engine's put/get/notify/wait: what the C interface (c_api_comm.h, called by
// kernels) and the host builtins (the Python bindings) both run. Every call is
// one or more self-clearing credit barriers (spec/distributed.md §7.1) on an
// INT32 signal window, which is all zero again when the call returns.
//
// Errors are thrown as pypto::Error (ValueError for bad arguments,
// WaitTimeoutError when a peer never arrives); the C interface turns them into
// its error strings.
#pragma once

#include <cstdint>

#include "pypto/comm/engine.h"
#include "pypto/runtime/c_api.h"

namespace pypto::comm::collectives {

// In place on the window `data` (row-major contiguous). Mesh: `signal` is at
// least [NR, 1] (row = sender); ring: at least [2*(NR-1), NR] (row = round,
// column = sender).
void AllReduce(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, ReduceOp op,
               bool ring);
// The other collectives take an [NR, 1] (or [NR]) signal.
void Barrier(Engine& engine, const PyptoRtTensorDesc* signal);
void Broadcast(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, int32_t root);
// `mine` [1, SIZE] may be any local tensor; `out` [NR, SIZE] is a window.
void AllGather(Engine& engine, const PyptoRtTensorDesc* mine, const PyptoRtTensorDesc* out,
               const PyptoRtTensorDesc* signal);
// `data` [NR, SIZE]; afterwards row `me` holds the sum over ranks of their row `me` (Sum only).
void ReduceScatter(Engine& engine, const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal, ReduceOp op);
// `stage` [NR, SIZE] may be any local tensor; `out` [NR, SIZE] is a window; out[s] = rank s's stage[me].
void AllToAll(Engine& engine, const PyptoRtTensorDesc* stage, const PyptoRtTensorDesc* out,
              const PyptoRtTensorDesc* signal);

}  // namespace pypto::comm::collectives
