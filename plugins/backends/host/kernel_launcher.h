// A program whose entry is a kernel (a `@pl.jit.incore` entry compiled on its
// own) has no orchestration function. Its launcher is the orchestration a
// caller needs to run it: `pypto_orchestration_<kernel>` submits the kernel
// once, with program argument i as its parameter i, directed by the
// parameter's direction (In: input, Out: output into the caller's tensor,
// InOut: inout), and sets the Out/InOut tensors as the results.
#pragma once

#include <string>

#include "pypto/ir/ir.h"

namespace pypto::host {

std::string GenerateKernelLauncherModule(const ir::Function& kernel, int kernel_id);

}  // namespace pypto::host
