// The pld.tensor.* collectives on window tensors, built on the running
// engine's put/get/notify/wait: what the C interface (c_api_comm.h, called by
// kernels) and the host builtins (the Python bindings) both run. Every call is
// one or more self-clearing credit barriers (spec/distributed.md §7.1) on an
// INT32 signal window, which is all zero again when the call returns. A call
// runs in the comm domain of its window operands (all in one domain): NR is the
// domain's size and ranks are domain ranks.
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
// The variable-count all_to_all. `input` and the window `target` are [NR*MAX_RECV, SIZE]: block d
// (MAX_RECV rows from row d*MAX_RECV) of this rank's input goes whole to block `me` of rank d's
// target. `send_counts` (INT32 [NR] or [NR, 1], any local tensor) says how many rows of block d
// are meant; min(send_counts[d], MAX_RECV) is set into rank d's `recv_counts` (INT32 window
// [NR, 1]) at row `me`. Windows that are operands must be distinct.
void AllToAllV(Engine& engine, const PyptoRtTensorDesc* input, const PyptoRtTensorDesc* target,
               const PyptoRtTensorDesc* signal, const PyptoRtTensorDesc* send_counts,
               const PyptoRtTensorDesc* recv_counts);

}  // namespace pypto::comm::collectives
