/* The runtime's C interface: what generated orchestration code (LLVM IR run
 * under ORC) and simulated kernels call. Plain C types only, so the symbols can
 * be resolved by name from libpypto_core.so.
 *
 * Every function taking a context returns 0 on success and a nonzero status
 * on failure. The first failure is kept in the context (pypto_rt_error) and
 * makes every later call on that context return it without doing anything, so
 * generated code may check the status once, at the end. A runtime runs one
 * context at a time: create the next context after destroying the last.
 *
 * Kernel arguments: a task's kernel receives `const int64_t* args` with one
 * slot per argument in the order they were added: a tensor argument's slot
 * holds the address of a PyptoRtTensorDesc, a scalar's slot holds its value. */
#ifndef PYPTO_RUNTIME_C_API_H_
#define PYPTO_RUNTIME_C_API_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PYPTO_RT_API __attribute__((visibility("default")))
#define PYPTO_RT_MAX_DIMS 8
#define PYPTO_RT_INVALID_KERNEL (-1)

typedef enum PyptoRtCoreType {
  PYPTO_RT_AIC = 0,  /* cube core */
  PYPTO_RT_AIV = 1,  /* vector core */
} PyptoRtCoreType;

typedef enum PyptoRtScopeMode {
  PYPTO_RT_SCOPE_AUTO = 0,   /* overlapping regions order tasks */
  PYPTO_RT_SCOPE_MANUAL = 1, /* only explicit deps order tasks submitted inside */
  PYPTO_RT_SCOPE_PARALLEL = 2, /* a pl.parallel loop: tasks of different iterations do not order each other */
} PyptoRtScopeMode;

/* A tensor as a kernel sees it. `data` is the address of element [0, ..., 0];
 * strides are in elements; dtype is a pypto DataType code (ir/dtype.h). */
typedef struct PyptoRtTensorDesc {
  void* data;
  int64_t shape[PYPTO_RT_MAX_DIMS];
  int64_t strides[PYPTO_RT_MAX_DIMS];
  int32_t ndim;
  int32_t dtype;
} PyptoRtTensorDesc;

/* What one core knows while it runs one block of a task. Per-core state a
 * simulator keeps (on-chip buffers) comes through core_state. */
typedef struct PyptoRtCoreContext {
  int32_t block_idx;    /* spmd block of the task, 0..block_num-1 */
  int32_t block_num;    /* the task's core_num */
  int32_t subblock_idx; /* AIV lane within the cluster (0 or 1); 0 on the AIC */
  int32_t core_type;    /* PyptoRtCoreType */
  int32_t cluster_id;   /* the worker (cluster) running the block */
  void* fault;          /* runtime-owned; report errors with pypto_rt_kernel_fail */
  void* core_state;     /* this core's state from RuntimeOptions::core_state (a
                           simulator's on-chip buffers), NULL when none */
} PyptoRtCoreContext;

typedef void (*PyptoRtKernelFn)(const int64_t* args, PyptoRtCoreContext* ctx);

/* A kernel reports a fault: the instruction that failed, the user's source
 * file and line it came from (NULL / 0 when unknown) and what went wrong. The
 * kernel should return after it. The run stops dispatching new tasks and
 * pypto_rt_wait reports the first fault. */
PYPTO_RT_API void pypto_rt_kernel_fail(PyptoRtCoreContext* ctx, const char* instruction, const char* source_file,
                                       int32_t source_line, const char* message);
/* Nonzero once any kernel of the run has faulted (long kernels may stop early). */
PYPTO_RT_API int32_t pypto_rt_kernel_faulted(const PyptoRtCoreContext* ctx);

typedef struct PyptoRtRuntime PyptoRtRuntime; /* worker threads; reusable across runs */
typedef struct PyptoRtContext PyptoRtContext; /* one program run */
typedef struct PyptoRtTensor PyptoRtTensor;   /* owned by its context */
typedef struct PyptoRtArgs PyptoRtArgs;       /* owned by its context */

/* num_clusters <= 0 picks one per hardware thread. NULL on failure. */
PYPTO_RT_API PyptoRtRuntime* pypto_rt_runtime_create(int32_t num_clusters);
PYPTO_RT_API void pypto_rt_runtime_destroy(PyptoRtRuntime* runtime);

PYPTO_RT_API PyptoRtContext* pypto_rt_context_create(PyptoRtRuntime* runtime);
/* Waits for the run's tasks, then frees the context, its tensors and args. */
PYPTO_RT_API void pypto_rt_context_destroy(PyptoRtContext* ctx);
/* The first error's message, or NULL when there was none. */
PYPTO_RT_API const char* pypto_rt_error(const PyptoRtContext* ctx);

/* The program's kernels: `func_id` is the id generated code submits with. */
PYPTO_RT_API int32_t pypto_rt_set_kernel(PyptoRtContext* ctx, int32_t func_id, const char* name, int32_t core_type,
                                         PyptoRtKernelFn fn);

/* The program's arguments, bound by the caller before the orchestration runs.
 * strides may be NULL (row-major). The memory is not copied. */
PYPTO_RT_API int32_t pypto_rt_bind_tensor(PyptoRtContext* ctx, int32_t index, void* data, int32_t dtype, int32_t ndim,
                                          const int64_t* shape, const int64_t* strides);
PYPTO_RT_API int32_t pypto_rt_bind_scalar(PyptoRtContext* ctx, int32_t index, int64_t value);
/* NULL (and the context's error set) when the index was not bound. */
PYPTO_RT_API PyptoRtTensor* pypto_rt_arg_tensor(PyptoRtContext* ctx, int32_t index);
/* 0 (and the context's error set) when the index was not bound. */
PYPTO_RT_API int64_t pypto_rt_arg_scalar(PyptoRtContext* ctx, int32_t index);

/* The program's `index`-th return value: a tensor the orchestration created
 * (returned to the caller, which keeps it alive) or one of its arguments. */
PYPTO_RT_API int32_t pypto_rt_set_result(PyptoRtContext* ctx, int32_t index, const PyptoRtTensor* tensor);

/* A new zero-filled, 64-byte aligned tensor living as long as the context. */
PYPTO_RT_API PyptoRtTensor* pypto_rt_tensor_create(PyptoRtContext* ctx, int32_t dtype, int32_t ndim,
                                                   const int64_t* shape);
/* A rectangular window of `base`: same rank, offsets + shape inside base. */
PYPTO_RT_API PyptoRtTensor* pypto_rt_tensor_view(PyptoRtContext* ctx, const PyptoRtTensor* base, int32_t ndim,
                                                 const int64_t* offsets, const int64_t* shape);
/* The size of dim `axis`, or -1 for a NULL tensor or an axis out of range. */
PYPTO_RT_API int64_t pypto_rt_tensor_dim(const PyptoRtTensor* tensor, int32_t axis);

/* Task arguments, built in kernel-argument order. */
PYPTO_RT_API PyptoRtArgs* pypto_rt_args_create(PyptoRtContext* ctx);
PYPTO_RT_API int32_t pypto_rt_args_add_input(PyptoRtArgs* args, const PyptoRtTensor* tensor);
PYPTO_RT_API int32_t pypto_rt_args_add_output(PyptoRtArgs* args, const PyptoRtTensor* tensor);
PYPTO_RT_API int32_t pypto_rt_args_add_inout(PyptoRtArgs* args, const PyptoRtTensor* tensor);
PYPTO_RT_API int32_t pypto_rt_args_add_output_existing(PyptoRtArgs* args, const PyptoRtTensor* tensor);
PYPTO_RT_API int32_t pypto_rt_args_add_no_dep(PyptoRtArgs* args, const PyptoRtTensor* tensor);
PYPTO_RT_API int32_t pypto_rt_args_add_scalar(PyptoRtArgs* args, int64_t value);
/* Explicit dependencies of the next submit with these args. */
PYPTO_RT_API int32_t pypto_rt_args_set_deps(PyptoRtArgs* args, const int64_t* task_ids, int32_t count);
/* Non-zero: the next submit with these args starts all its blocks at once
 * (pl.spmd(..., sync_start=True)); it fails when there are more blocks than clusters. */
PYPTO_RT_API int32_t pypto_rt_args_set_sync_start(PyptoRtArgs* args, int32_t sync_start);

/* Submits one task of `core_num` blocks running kernel `func_id` (AIC or AIV
 * by the kernel's core type). Returns the task id, or -1 on failure. */
PYPTO_RT_API int64_t pypto_rt_submit(PyptoRtContext* ctx, int32_t func_id, const PyptoRtArgs* args, int32_t core_num);
/* A cluster task: an AIC kernel and up to two AIV kernels run together on one
 * cluster per block; PYPTO_RT_INVALID_KERNEL leaves a core idle. */
PYPTO_RT_API int64_t pypto_rt_submit_mixed(PyptoRtContext* ctx, int32_t aic_func_id, int32_t aiv0_func_id,
                                           int32_t aiv1_func_id, const PyptoRtArgs* args, int32_t core_num);

/* A join (pl.system.task_dummy): no kernel, finishes when the deps set on
 * `args` have; its id can then stand for all of them. */
PYPTO_RT_API int64_t pypto_rt_submit_join(PyptoRtContext* ctx, const PyptoRtArgs* args);

PYPTO_RT_API int32_t pypto_rt_scope_begin(PyptoRtContext* ctx, int32_t mode);
PYPTO_RT_API int32_t pypto_rt_scope_end(PyptoRtContext* ctx);
/* Starts the next iteration of the innermost PARALLEL scope (call it at the
 * top of every iteration after the first, or of every one: only changes count). */
PYPTO_RT_API int32_t pypto_rt_parallel_next(PyptoRtContext* ctx);
/* Marks the tensor's memory for the argument dump of a traced run (pl.dump_tag). */
PYPTO_RT_API int32_t pypto_rt_dump_tag(PyptoRtContext* ctx, const PyptoRtTensor* tensor);

/* Waits until every submitted task has finished. Nonzero when a kernel
 * faulted or a call failed; pypto_rt_error says why. */
PYPTO_RT_API int32_t pypto_rt_wait(PyptoRtContext* ctx);

#ifdef __cplusplus
}
#endif

#endif /* PYPTO_RUNTIME_C_API_H_ */
