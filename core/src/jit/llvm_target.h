// Registers the host target with LLVM once per process; both the compiler and
// the JIT need its code generator.
#pragma once

#include <mutex>

#include <llvm/Support/TargetSelect.h>

namespace pypto::jit {

inline void InitializeNativeTargetOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
}

}  // namespace pypto::jit
