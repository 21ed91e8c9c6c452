// The runtime C API (pypto/runtime/c_api.h) as declarations in an LLVM
// module: one callee per pypto_rt_* function the orchestration code calls.
// Handles (context, tensors, args) are opaque pointers; task ids are i64.
#pragma once

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Module.h>

namespace pypto::host {

struct RuntimeApi {
  explicit RuntimeApi(llvm::Module& module);

  llvm::FunctionCallee set_kernel;
  llvm::FunctionCallee arg_tensor;
  llvm::FunctionCallee arg_scalar;
  llvm::FunctionCallee set_result;
  llvm::FunctionCallee tensor_create;
  llvm::FunctionCallee tensor_view;
  llvm::FunctionCallee tensor_dim;
  llvm::FunctionCallee args_create;
  llvm::FunctionCallee add_input;
  llvm::FunctionCallee add_output;
  llvm::FunctionCallee add_inout;
  llvm::FunctionCallee add_output_existing;
  llvm::FunctionCallee add_no_dep;
  llvm::FunctionCallee add_scalar;
  llvm::FunctionCallee set_deps;
  llvm::FunctionCallee set_sync_start;
  llvm::FunctionCallee submit;
  llvm::FunctionCallee submit_mixed;
  llvm::FunctionCallee submit_join;
  llvm::FunctionCallee scope_begin;
  llvm::FunctionCallee scope_end;
  llvm::FunctionCallee parallel_next;
  llvm::FunctionCallee dump_tag;
  llvm::FunctionCallee error;
  // void(const int64_t* args, PyptoRtCoreContext* ctx), the kernel entry type.
  llvm::FunctionType* kernel_type;
};

}  // namespace pypto::host
