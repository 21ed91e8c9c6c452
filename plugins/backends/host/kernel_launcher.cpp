#include "kernel_launcher.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "orchestration_codegen.h"
#include "pypto/backend/backend.h"
#include "pypto/runtime/c_api.h"
#include "runtime_api.h"

namespace pypto::host {

namespace {

bool IsTensor(const ir::VarPtr& param) { return ir::As<ir::TensorType>(param->type) != nullptr; }

llvm::FunctionCallee AddFor(const RuntimeApi& api, ir::ParamDirection direction) {
  switch (direction) {
    case ir::ParamDirection::Out: return api.add_output_existing;
    case ir::ParamDirection::InOut: return api.add_inout;
    case ir::ParamDirection::In: break;
  }
  return api.add_input;
}

}  // namespace

std::string GenerateKernelLauncherModule(const ir::Function& kernel, int kernel_id) {
  llvm::LLVMContext context;
  auto module = std::make_unique<llvm::Module>("launcher_" + kernel.name, context);
  RuntimeApi api(*module);
  llvm::IRBuilder<> b(context);
  auto* fn_type = llvm::FunctionType::get(b.getInt32Ty(), {b.getPtrTy()}, false);
  auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, "pypto_orchestration_" + kernel.name,
                                    *module);
  llvm::Value* ctx = fn->getArg(0);
  ctx->setName("ctx");
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", fn));

  int core = backend::KernelCoreType(kernel) == ir::FunctionType::AIC ? PYPTO_RT_AIC : PYPTO_RT_AIV;
  llvm::FunctionCallee entry = module->getOrInsertFunction("pypto_kernel_" + kernel.name, api.kernel_type);
  b.CreateCall(api.set_kernel, {ctx, b.getInt32(kernel_id), b.CreateGlobalStringPtr(kernel.name, "kernel_name"),
                                b.getInt32(core), entry.getCallee()});
  llvm::Value* args = b.CreateCall(api.args_create, {ctx}, "args");
  std::vector<llvm::Value*> results;
  // Kernel slots: tensors first, then scalars, each in parameter order.
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const auto& param = kernel.params[i];
    if (!IsTensor(param)) continue;
    llvm::Value* tensor = b.CreateCall(api.arg_tensor, {ctx, b.getInt32(static_cast<int32_t>(i))}, param->name_hint);
    ir::ParamDirection direction = kernel.param_directions[i];
    b.CreateCall(AddFor(api, direction), {args, tensor});
    if (direction != ir::ParamDirection::In) results.push_back(tensor);
  }
  for (size_t i = 0; i < kernel.params.size(); ++i) {
    const auto& param = kernel.params[i];
    if (IsTensor(param)) continue;
    llvm::Value* value = b.CreateCall(api.arg_scalar, {ctx, b.getInt32(static_cast<int32_t>(i))}, param->name_hint);
    b.CreateCall(api.add_scalar, {args, value});
  }
  b.CreateCall(api.submit, {ctx, b.getInt32(kernel_id), args, b.getInt32(1)}, "task");
  size_t returned = std::min(results.size(), kernel.return_types.size());
  for (size_t r = 0; r < returned; ++r) {
    b.CreateCall(api.set_result, {ctx, b.getInt32(static_cast<int32_t>(r)), results[r]});
  }
  llvm::Value* error = b.CreateCall(api.error, {ctx}, "error");
  b.CreateRet(b.CreateZExt(b.CreateIsNotNull(error), b.getInt32Ty(), "status"));
  return VerifiedModuleText(*module, kernel);
}

}  // namespace pypto::host
