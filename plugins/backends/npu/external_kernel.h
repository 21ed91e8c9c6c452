// Kernels whose code is hand-written C++ (a function with the attribute
// `external_source`: `@pl.jit.incore(external_source=...)`, or a kernel of a
// kernel plugin called through pypto.kernels). The artifact is a one-line
// wrapper that #includes the source where it lies, so that the source's own
// relative #includes resolve and compile errors name its file and line; the
// toolchain builds it like any generated kernel (on the simulators: compiled
// in-process, cached, with the source tracked as a dependency of the object).
#pragma once

#include <optional>
#include <string>

#include "pypto/ir/function.h"

namespace pypto::npu {

// The function's external source (an absolute path), when it has one.
std::optional<std::string> ExternalSourceOf(const ir::Function& function);

// The kernel source of an external kernel: a comment and the #include of
// `source`. A CodegenError naming the function when the file does not exist
// or its path cannot be spelled in an #include.
std::string ExternalKernelWrapper(const ir::Function& function, const std::string& source);

}  // namespace pypto::npu
