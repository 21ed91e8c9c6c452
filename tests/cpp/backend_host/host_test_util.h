// Shared by the host backend tests: small orchestration programs built with
// the IR node APIs, generation through the backend registry, and a runner
// that JIT-links the generated module with native kernels and runs it on a
// runtime.
#pragma once

#include <gtest/gtest.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/SourceMgr.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pypto/backend/registry.h"
#include "pypto/ir/call_types.h"
#include "pypto/ir/ir.h"
#include "pypto/jit/jit_session.h"
#include "pypto/ops/registry.h"
#include "pypto/runtime/c_api_host.h"
#include "pypto/runtime/runtime.h"

namespace pypto::host::testing {

using namespace pypto::ir;  // NOLINT: test brevity

inline Span SourceLine(int line) { return Span("orchestration.py", line, 5); }

inline TypePtr Mat(int64_t rows, int64_t cols) { return TensorType::Make(std::vector<int64_t>{rows, cols}, DataType::FP32); }
inline VarPtr TensorParam(const std::string& name, int64_t rows = 8, int64_t cols = 4) {
  return Var::Make(name, Mat(rows, cols));
}
inline VarPtr IndexParam(const std::string& name) { return Var::Make(name, ScalarType::Make(DataType::INDEX)); }

// A kernel of type `type` whose body returns its Out/InOut parameters: the
// host backend only reads a kernel's signature and result parameters.
inline FunctionPtr KernelFn(const std::string& name, std::vector<VarPtr> params, std::vector<ParamDirection> dirs,
                            FunctionType type = FunctionType::AIV) {
  std::vector<ExprPtr> results;
  std::vector<TypePtr> result_types;
  for (size_t i = 0; i < params.size(); ++i) {
    if (dirs[i] == ParamDirection::In) continue;
    results.push_back(params[i]);
    result_types.push_back(params[i]->type);
  }
  return Function::Make(name, type, std::move(params), std::move(dirs), result_types, ReturnStmt::Make(results));
}

inline FunctionPtr Orchestration(const std::string& name, std::vector<VarPtr> params, std::vector<TypePtr> returns,
                                 std::vector<StmtPtr> body) {
  std::vector<ParamDirection> dirs(params.size(), ParamDirection::In);
  return Function::Make(name, FunctionType::Orchestration, std::move(params), std::move(dirs), std::move(returns),
                        SeqStmts::Make(std::move(body)), SourceLine(1));
}

// `self.<kernel>(args...)` with the call's directions; its type is the
// kernel's results.
inline CallPtr KernelCall(const FunctionPtr& kernel, std::vector<ExprPtr> args, std::vector<std::string> dirs,
                          int line = 2, Attrs extra = {}) {
  Attrs attrs = extra;
  attrs.Set("arg_directions", std::move(dirs));
  return Call::Make(GlobalVar::Make(kernel->name), std::move(args), {}, CallTypeOf(kernel->return_types), SourceLine(line),
                    std::move(attrs));
}

inline CallPtr OpCall(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}, int line = 2) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs), SourceLine(line));
}

inline ExprPtr Dims(const std::vector<int64_t>& values) { return MakeTuple::Make(Ints(values)); }

inline CallPtr Create(int64_t rows = 8, int64_t cols = 4) {
  return OpCall("tensor.create", {Dims({rows, cols})}, Attrs{{"dtype", DataType::FP32}});
}

// `var = value`, with `var` a new variable named `name` typed as the value.
inline StmtPtr Let(VarPtr& var, const std::string& name, const ExprPtr& value) {
  var = Var::Make(name, value->type);
  return AssignStmt::Make(var, value, value->span);
}

// `r, tid = pl.submit(...)`: binds `result` (when the kernel has one) and `task`.
inline std::vector<StmtPtr> SubmitStmts(const CallPtr& call, std::vector<ExprPtr> deps, VarPtr* result, VarPtr& task,
                                        const std::string& task_name) {
  auto submit = Submit::Make(call, std::move(deps), {}, call->span);
  auto tuple = Var::Make(task_name + "_tuple", submit->type);
  std::vector<StmtPtr> stmts{AssignStmt::Make(tuple, submit, call->span)};
  int64_t index = submit->task_id_index();
  if (result && index > 0) stmts.push_back(Let(*result, task_name + "_out", TupleGetItem::Make(tuple, 0)));
  stmts.push_back(Let(task, task_name, TupleGetItem::Make(tuple, index)));
  return stmts;
}

inline std::vector<backend::Artifact> Generate(const ProgramPtr& program) {
  auto backend = backend::BackendRegistry::Global().Create("host");
  backend::BackendContext ctx;
  return backend::RunBackend(*backend, program, ctx);
}

inline std::string GeneratedText(const ProgramPtr& program, const std::string& function = "main") {
  for (const auto& artifact : Generate(program)) {
    if (artifact.function == function) return artifact.text;
  }
  ADD_FAILURE() << "no artifact for " << function;
  return "";
}

// Row-major FP32 tensor filled with `value(i)` for element i.
template <typename F>
runtime::Tensor Filled(int64_t rows, int64_t cols, F value) {
  runtime::Tensor t = runtime::Tensor::Allocate(DataType::FP32, {rows, cols});
  auto* data = static_cast<float*>(t.data());
  for (int64_t i = 0; i < rows * cols; ++i) data[i] = value(i);
  return t;
}

inline float At(const runtime::Tensor& t, int64_t row, int64_t col) {
  return static_cast<const float*>(t.data())[row * t.strides()[0] + col * t.strides()[1]];
}

// An element of a 2-D FP32 tensor a kernel was handed.
inline float& Element(const int64_t* args, int slot, int64_t row, int64_t col) {
  const auto* desc = reinterpret_cast<const PyptoRtTensorDesc*>(args[slot]);
  return static_cast<float*>(desc->data)[row * desc->strides[0] + col * desc->strides[1]];
}
inline const PyptoRtTensorDesc& Desc(const int64_t* args, int slot) {
  return *reinterpret_cast<const PyptoRtTensorDesc*>(args[slot]);
}

// One generated module linked with native kernels, run on a fresh runtime.
class HostRun {
 public:
  explicit HostRun(const ProgramPtr& program, int clusters = 2)
      : runtime_(runtime::RuntimeOptions(clusters)), program_(program) {}
  ~HostRun() {
    if (ctx_) pypto_rt_context_destroy(ctx_);
  }

  void Kernel(const std::string& name, PyptoRtKernelFn fn) {
    session_.DefineSymbol("pypto_kernel_" + name, reinterpret_cast<void*>(fn));
  }
  jit::JitSession& session() { return session_; }

  // Generates, parses and links `function`, binds `args` (tensors by index,
  // scalars by index) and runs it; returns its status after waiting.
  int Run(const std::map<int, runtime::Tensor>& tensors, const std::map<int, int64_t>& scalars = {},
          const std::string& function = "main") {
    AddModule(GeneratedText(program_, function));
    ctx_ = runtime::CreateContext(runtime_);
    for (const auto& [index, tensor] : tensors) runtime::BindTensor(ctx_, index, tensor);
    for (const auto& [index, value] : scalars) pypto_rt_bind_scalar(ctx_, index, value);
    auto entry = session_.LookupFunction<int32_t(PyptoRtContext*)>("pypto_orchestration_" + function);
    int status = entry(ctx_);
    int waited = pypto_rt_wait(ctx_);
    return status != 0 ? status : waited;
  }

  std::string error() const {
    const char* message = pypto_rt_error(ctx_);
    return message ? message : "";
  }
  std::map<int32_t, runtime::Tensor> results() const { return runtime::Results(ctx_); }
  runtime::Runtime& runtime() { return runtime_; }

 private:
  void AddModule(const std::string& text) {
    auto context = std::make_unique<llvm::LLVMContext>();
    llvm::SMDiagnostic diagnostic;
    auto module = llvm::parseIR(llvm::MemoryBufferRef(text, "orchestration.ll"), diagnostic, *context);
    ASSERT_TRUE(module) << diagnostic.getMessage().str() << "\n" << text;
    session_.AddModule(std::move(context), std::move(module));
  }

  runtime::Runtime runtime_;
  ProgramPtr program_;
  jit::JitSession session_;
  PyptoRtContext* ctx_ = nullptr;
};

}  // namespace pypto::host::testing
