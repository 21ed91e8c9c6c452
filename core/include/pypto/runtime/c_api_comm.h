/* The communication engine's C interface: what simulated kernels of
 * distributed (pld) programs call. Plain C, exported from libpypto_core.so, so
 * kernels resolve the symbols from the process. The engine is the one
 * comm::Start started in this process (pypto/comm/engine.h has the ordering
 * contract: a put is complete at the target when it returns, a notify is a
 * release after the earlier puts, a wait returns with acquire semantics).
 *
 * Window addresses are local addresses inside a window buffer; the same byte
 * offset is used on `peer`. Each call returning `const char*` returns NULL on
 * success or an error message, kept per thread and valid until this thread's
 * next pypto_comm_ call. All calls are thread-safe. */
#ifndef PYPTO_RUNTIME_C_API_COMM_H_
#define PYPTO_RUNTIME_C_API_COMM_H_

#include <stdint.h>

#include "pypto/runtime/c_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI values (pypto::comm enums). */
#define PYPTO_COMM_NOTIFY_ATOMIC_ADD 0
#define PYPTO_COMM_NOTIFY_SET 1
#define PYPTO_COMM_WAIT_EQ 0
#define PYPTO_COMM_WAIT_GE 1
#define PYPTO_COMM_ATOMIC_NONE 0
#define PYPTO_COMM_ATOMIC_ADD 1

/* -1 when no engine runs */
PYPTO_RT_API int32_t pypto_comm_rank(void);
PYPTO_RT_API int32_t pypto_comm_world_size(void);

/* This rank's position in (its domain rank), and the rank count of, the comm domain of the window
 * containing `window_address` (pld.rank / pld.nranks of pld.get_comm_ctx(window)). Inside a domain
 * ranks are dense: in the domain of world ranks {1, 2}, world rank 1 is domain rank 0. -1 when no
 * engine runs or the address lies in no window of this rank. */
PYPTO_RT_API int32_t pypto_comm_domain_rank(const void* window_address);
PYPTO_RT_API int32_t pypto_comm_domain_size(const void* window_address);

/* Peers are domain ranks of the comm domain of the window addressed.
 *
 * Writes `rows` rows of `row_bytes` bytes from `src` (rows src_row_stride_bytes
 * apart) to `peer`'s window at the offset of `window_dst` (rows
 * dst_row_stride_bytes apart). atomic ADD accumulates elementwise in `dtype`
 * (a pypto DataType code, core/include/pypto/ir/dtype.h): FP32, FP16, BF16,
 * INT32, INT16, INT8. */
PYPTO_RT_API const char* pypto_comm_put(int32_t peer, void* window_dst, int64_t dst_row_stride_bytes, const void* src,
                                        int64_t src_row_stride_bytes, int64_t rows, int64_t row_bytes, int32_t dtype,
                                        int32_t atomic);
/* Reads rows from `peer`'s window at the offset of `window_src` into local `dst`. */
PYPTO_RT_API const char* pypto_comm_get(void* dst, int64_t dst_row_stride_bytes, int32_t peer, const void* window_src,
                                        int64_t src_row_stride_bytes, int64_t rows, int64_t row_bytes);
/* Sets (op SET) or adds to (op ATOMIC_ADD) `peer`'s INT32 cell at the offset of `window_cell`. */
PYPTO_RT_API const char* pypto_comm_notify(int32_t peer, int32_t* window_cell, int32_t value, int32_t op);
/* Blocks until this rank's `cell` == / >= `expected` (cmp EQ / GE), or fails
 * at the wait timeout or when another rank's wait timed out. signal: the
 * INT32 window tensor the cell lives in (for the report); cell = its element
 * at the wait's offsets. */
PYPTO_RT_API const char* pypto_comm_wait(const PyptoRtTensorDesc* signal, const int32_t* cell, int32_t expected,
                                         int32_t cmp);
/* pld.system.defer_wait: registers "this rank's `cell` >= expected" with the task runtime and returns
 * at once, freeing the core. The calling kernel's task completes, and releases its dependents, only once
 * every condition it registered holds (after the acquire a wait gives); the runtime polls them off the
 * cores. A condition that still does not hold at the wait timeout, or when another rank's wait timed
 * out, fails the run with a timed-out wait's report, at source_file:source_line. expected lies in
 * [0, INT32_MAX]. Only a kernel the runtime runs may call it; a task holds at most
 * PYPTO_COMM_MAX_DEFERRED_CONDITIONS conditions, and at most PYPTO_COMM_MAX_DEFERRED_TASKS tasks are
 * deferred at once. */
#define PYPTO_COMM_MAX_DEFERRED_CONDITIONS 64
#define PYPTO_COMM_MAX_DEFERRED_TASKS 64
PYPTO_RT_API const char* pypto_comm_defer_wait(const PyptoRtTensorDesc* signal, const int32_t* cell, int32_t expected,
                                               const char* source_file, int32_t source_line);

/* Collectives on whole windows, every rank of the windows' comm domain calling the same one (the
 * InCore composite form of pld.tensor.*; host builtins run the same code). All window operands of a
 * call must be in one domain; NR, rows and roots count its ranks. Tensors are window descriptors except
 * `mine`/`stage`, which may be any local tensor. Signal windows (INT32) follow the self-clearing
 * credit-barrier protocol and are all zero again when the call returns: mesh allreduce, barrier,
 * broadcast, allgather, reduce_scatter, all_to_all take [NR, 1] (row = the sender); ring allreduce
 * takes [2*(NR-1), NR] (row = the round). op: pld.ReduceOp (0 Sum, 1 Max, 2 Min, 3 Prod). */
PYPTO_RT_API const char* pypto_comm_allreduce(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal,
                                              int32_t op, int32_t ring);
PYPTO_RT_API const char* pypto_comm_barrier(const PyptoRtTensorDesc* signal);
PYPTO_RT_API const char* pypto_comm_broadcast(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal,
                                              int32_t root);
PYPTO_RT_API const char* pypto_comm_allgather(const PyptoRtTensorDesc* mine, const PyptoRtTensorDesc* out,
                                              const PyptoRtTensorDesc* signal);
PYPTO_RT_API const char* pypto_comm_reduce_scatter(const PyptoRtTensorDesc* data, const PyptoRtTensorDesc* signal,
                                                   int32_t op);
PYPTO_RT_API const char* pypto_comm_all_to_all(const PyptoRtTensorDesc* stage, const PyptoRtTensorDesc* out,
                                               const PyptoRtTensorDesc* signal);
/* Variable counts: `input` (any local tensor) and the window `target` are [NR*MAX_RECV, SIZE];
 * block d of input (MAX_RECV rows from row d*MAX_RECV) goes whole to block `me` of rank d's
 * target, and min(send_counts[d], MAX_RECV) is set into rank d's recv_counts[me]. send_counts:
 * INT32 [NR] or [NR, 1], any local tensor; recv_counts: INT32 window [NR, 1]; signal [NR, 1]. */
PYPTO_RT_API const char* pypto_comm_all_to_all_v(const PyptoRtTensorDesc* input, const PyptoRtTensorDesc* target,
                                                 const PyptoRtTensorDesc* signal,
                                                 const PyptoRtTensorDesc* send_counts,
                                                 const PyptoRtTensorDesc* recv_counts);

#ifdef __cplusplus
}
#endif

#endif /* PYPTO_RUNTIME_C_API_COMM_H_ */
