/* What a kernel's entry point receives from the PyPTO runtime, and the
 * helpers its generated unpacking uses. Not part of the ISA: a kernel
 * compiled against the real <pto/pto-inst.hpp> includes it too.
 *
 * Every kernel source defines
 *
 *   extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args);
 *
 * as the Ascend toolchain and the upstream runtime expect. `args` has one
 * 64-bit slot per kernel argument, tensors first, then scalars:
 *  - a tensor slot holds the address of its PyptoRtTensorDesc (c_api.h):
 *    the element pointer, the view's shape and its strides in elements;
 *  - a scalar slot holds the value's bits in its own dtype (integers
 *    sign-extended, an FP32 as its 32 bits zero-extended), read back through
 *    a union.
 * The block a kernel runs (get_block_idx(args) and the rest) comes from
 * whatever runs it: the simulator's runtime, or a replay harness, each of
 * which defines pypto_kernel_context. */
#ifndef PYPTO_RUNTIME_KERNEL_ARGS_H_
#define PYPTO_RUNTIME_KERNEL_ARGS_H_

#include <stdint.h>

#include "pypto/runtime/c_api.h"

#ifndef __gm__
#define __gm__
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The context of the block the calling thread runs. */
const PyptoRtCoreContext* pypto_kernel_context(void);

/* A TLOAD / TSTORE window that leaves its tensor: where the window ends (or
 * its negative start) and the dim's size. The simulator records it as a
 * fault of `instruction` at the current source line. */
void pypto_kernel_window_fault(const char* instruction, int64_t value, int64_t limit);

#ifdef __cplusplus
}

inline int32_t get_block_idx(__gm__ int64_t*) { return pypto_kernel_context()->block_idx; }
inline int32_t get_block_num(__gm__ int64_t*) { return pypto_kernel_context()->block_num; }
inline int32_t get_sub_block_id(__gm__ int64_t*) { return pypto_kernel_context()->subblock_idx; }

namespace pypto {

/* The extent of the window [offset, offset + extent) of a dim of `dim`
 * elements, cut at the dim's end, so that the instruction never touches
 * memory outside the tensor. A window that leaves the dim is reported first. */
inline int64_t WindowExtent(int64_t dim, int64_t offset, int64_t extent, const char* instruction) {
  if (offset >= 0 && offset + extent <= dim) return extent;
  pypto_kernel_window_fault(instruction, offset < 0 ? offset : offset + extent, dim);
  if (offset < 0 || offset >= dim) return 0;
  return dim - offset;
}

}  // namespace pypto
#endif

#endif /* PYPTO_RUNTIME_KERNEL_ARGS_H_ */
