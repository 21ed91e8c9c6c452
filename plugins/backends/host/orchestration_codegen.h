// One Orchestration function -> one LLVM module defining
// `i32 @pypto_orchestration_<f>(ptr %ctx)`, which drives the runtime C API
// (see README.md for the ABI and the IR -> C API mapping).
#pragma once

#include <map>
#include <string>

#include "pypto/backend/platform.h"
#include "pypto/ir/ir.h"

namespace llvm {
class Module;
}

namespace pypto::host {

inline constexpr const char* kBackendName = "host";

// The module's text as LLVM prints it, after llvm::verifyModule accepted it.
// `kernel_ids` numbers the program's kernels (NumberKernels); `platform` bounds
// sync_start grids. Something the backend cannot lower is a CodegenError naming
// the function, the op and the source line.
std::string GenerateOrchestrationModule(const ir::Program& program, const ir::Function& function,
                                        const std::map<std::string, int>& kernel_ids,
                                        const backend::Platform& platform);

// The module's text after llvm::verifyModule accepted it; a module that does
// not verify is an InternalError naming `function` (a bug of this backend).
std::string VerifiedModuleText(const llvm::Module& module, const ir::Function& function);

}  // namespace pypto::host
