#include "runtime_api.h"

namespace pypto::host {

RuntimeApi::RuntimeApi(llvm::Module& module) {
  llvm::LLVMContext& c = module.getContext();
  llvm::Type* ptr = llvm::PointerType::get(c, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  auto declare = [&](const char* name, llvm::Type* result, std::initializer_list<llvm::Type*> params) {
    return module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
  };
  set_kernel = declare("pypto_rt_set_kernel", i32, {ptr, i32, ptr, i32, ptr});
  arg_tensor = declare("pypto_rt_arg_tensor", ptr, {ptr, i32});
  arg_scalar = declare("pypto_rt_arg_scalar", i64, {ptr, i32});
  set_result = declare("pypto_rt_set_result", i32, {ptr, i32, ptr});
  tensor_create = declare("pypto_rt_tensor_create", ptr, {ptr, i32, i32, ptr});
  tensor_view = declare("pypto_rt_tensor_view", ptr, {ptr, ptr, i32, ptr, ptr});
  tensor_dim = declare("pypto_rt_tensor_dim", i64, {ptr, i32});
  args_create = declare("pypto_rt_args_create", ptr, {ptr});
  add_input = declare("pypto_rt_args_add_input", i32, {ptr, ptr});
  add_output = declare("pypto_rt_args_add_output", i32, {ptr, ptr});
  add_inout = declare("pypto_rt_args_add_inout", i32, {ptr, ptr});
  add_output_existing = declare("pypto_rt_args_add_output_existing", i32, {ptr, ptr});
  add_no_dep = declare("pypto_rt_args_add_no_dep", i32, {ptr, ptr});
  add_scalar = declare("pypto_rt_args_add_scalar", i32, {ptr, i64});
  set_deps = declare("pypto_rt_args_set_deps", i32, {ptr, ptr, i32});
  set_sync_start = declare("pypto_rt_args_set_sync_start", i32, {ptr, i32});
  submit = declare("pypto_rt_submit", i64, {ptr, i32, ptr, i32});
  submit_mixed = declare("pypto_rt_submit_mixed", i64, {ptr, i32, i32, i32, ptr, i32});
  submit_join = declare("pypto_rt_submit_join", i64, {ptr, ptr});
  scope_begin = declare("pypto_rt_scope_begin", i32, {ptr, i32});
  scope_end = declare("pypto_rt_scope_end", i32, {ptr});
  parallel_next = declare("pypto_rt_parallel_next", i32, {ptr});
  dump_tag = declare("pypto_rt_dump_tag", i32, {ptr, ptr});
  error = declare("pypto_rt_error", ptr, {ptr});
  kernel_type = llvm::FunctionType::get(llvm::Type::getVoidTy(c), {ptr, ptr}, false);
}

}  // namespace pypto::host
