// What a kernel's entry point sees on the simulated platforms, and the
// helpers a kernel entry (generated or hand-written) uses to read it.
//
// Every kernel source defines
//
//   extern "C" void kernel_entry(const int64_t* args, PyptoRtCoreContext* ctx);
//
// `args` has one 64-bit slot per kernel argument, tensors first (each slot
// holds the address of a PyptoRtTensorDesc), then scalars (each slot holds the
// value's bits in its own dtype: integers sign-extended, FP32 as its 32 bits,
// zero-extended). The simulator toolchain compiles each kernel source with
// -Dkernel_entry=pypto_kernel_<function>, so many kernels share one JIT
// session; the orchestration registers `pypto_kernel_<function>` by that name.
//
// Freestanding like the rest of the ISA headers: the runtime's C API header
// only needs <stdint.h>, which Clang provides itself under -ffreestanding.
#pragma once

#include "pypto/isa/isa.h"
#include "pypto/runtime/c_api.h"

extern "C" {
// Ends a kernel on the simulator: when the calling core recorded a fault, it
// is reported to the runtime (pypto_rt_kernel_fail, which names the kernel)
// with the instruction, the user's source file and line and the numbers, and
// the core's fault state is cleared for its next kernel. Defined by the core.
void pypto_sim_finish_kernel(PyptoRtCoreContext* ctx, const char* source_file);
}

namespace pto {

// The descriptor in tensor slot `i`.
inline const PyptoRtTensorDesc& TensorArg(const int64_t* args, int i) {
  return *reinterpret_cast<const PyptoRtTensorDesc*>(static_cast<__INTPTR_TYPE__>(args[i]));
}

// The element pointer of tensor slot `i`.
template <typename T>
inline T* TensorData(const int64_t* args, int i) {
  return static_cast<T*>(TensorArg(args, i).data);
}

// The scalar in slot `i`, reinterpreted from its bits (see the slot rule above).
template <typename T>
inline T ScalarArg(const int64_t* args, int i) {
  if constexpr (sizeof(T) == 8) {
    return BitCast<T>(args[i]);
  } else if constexpr (sizeof(T) == 4) {
    return BitCast<T>(static_cast<uint32_t>(static_cast<uint64_t>(args[i])));
  } else if constexpr (sizeof(T) == 2) {
    return BitCast<T>(static_cast<uint16_t>(static_cast<uint64_t>(args[i])));
  } else {
    return static_cast<T>(args[i]);
  }
}

// The five right-aligned dims (outermost first) of a descriptor's shape and
// strides, in the form GlobalTensor's dynamic constructor takes.
inline DynDims DescShape(const PyptoRtTensorDesc& d) {
  DynDims out{{1, 1, 1, 1, 1}};
  int n = d.ndim < 5 ? d.ndim : 5;
  for (int i = 0; i < n; ++i) out.v[5 - n + i] = d.shape[d.ndim - n + i];
  return out;
}

inline DynDims DescStrides(const PyptoRtTensorDesc& d) {
  DynDims out{{0, 0, 0, 0, 1}};
  int n = d.ndim < 5 ? d.ndim : 5;
  for (int i = 0; i < n; ++i) out.v[5 - n + i] = d.strides[d.ndim - n + i];
  return out;
}

// The extent of the window [offset, offset + extent) of a dim of `dim`
// elements, cut at the dim's end. A window that leaves the dim is recorded as
// a GlobalOutOfBounds fault of `instruction` (value: where the window ends,
// limit: the dim's size) on the calling core, and the cut window keeps the
// instruction from touching memory outside the tensor.
inline int64_t WindowExtent(int64_t dim, int64_t offset, int64_t extent, const char* instruction, Loc loc) {
  if (offset >= 0 && offset + extent <= dim) return extent;
  if (SimCore* core = pypto_sim_current_core()) {
    core->Raise(FaultKind::GlobalOutOfBounds, instruction, loc, TileType::Vec, offset < 0 ? offset : offset + extent,
                dim);
  }
  if (offset < 0 || offset >= dim) return 0;
  return dim - offset;
}

}  // namespace pto
