// Shared by the npu backend tests: building InCore kernels, planning their
// memory with the real passes, generating their source with the "npu"
// backend, and compiling and running it on a simulated core.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pypto/backend/backend.h"
#include "pypto/backend/platform.h"
#include "pypto/backend/registry.h"
#include "pypto/backend/simulator.h"
#include "pypto/backend/toolchain.h"
#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"
#include "pypto/pass/context.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/pipeline.h"
#include "pypto/runtime/runtime.h"
#include "support/pass_test_util.h"

namespace pypto::test {

inline Attrs Target(MemorySpace space) {
  Attrs kwargs;
  kwargs.Set("target_memory", EnumAttr::Of(space));
  return kwargs;
}

inline Span Line(int line) { return Span("kernels.py", line, 5); }

// Builds the statements of one kernel body, each at its own source line.
class Body {
 public:
  // `name = value` at `line`.
  VarPtr Def(const std::string& name, const ExprPtr& value, int line) {
    auto var = Var::Make(name, value->type, Line(line));
    stmts.push_back(AssignStmt::Make(var, value, Line(line)));
    return var;
  }
  void Eval(const ExprPtr& value, int line) { stmts.push_back(EvalStmt::Make(value, Line(line))); }
  std::vector<StmtPtr> stmts;
};

inline CallPtr Load(const VarPtr& tensor, std::vector<ExprPtr> offsets, const std::vector<int64_t>& shape,
                    MemorySpace space = MemorySpace::Vec) {
  return Op("tile.load", {tensor, MakeTuple::Make(std::move(offsets)), Tuple(shape)}, Target(space));
}
inline CallPtr Load(const VarPtr& tensor, const std::vector<int64_t>& shape, MemorySpace space = MemorySpace::Vec) {
  return Load(tensor, Ints(std::vector<int64_t>(shape.size(), 0)), shape, space);
}
inline CallPtr Store(const ExprPtr& tile, std::vector<ExprPtr> offsets, const VarPtr& tensor) {
  return Op("tile.store", {tile, MakeTuple::Make(std::move(offsets)), tensor});
}
inline CallPtr Store(const ExprPtr& tile, const VarPtr& tensor) {
  return Store(tile, Ints(std::vector<int64_t>(As<TileType>(tile->type)->rank(), 0)), tensor);
}

// An InCore function of the given parameters (the last tensor is the output)
// defined at line 1 of kernels.py.
inline FunctionPtr KernelFn(const std::string& name, std::vector<VarPtr> params, std::vector<StmtPtr> body) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::In);
  for (size_t i = params.size(); i-- > 0;) {
    if (IsA<TensorType>(params[i]->type)) {
      directions[i] = ParamDirection::Out;
      break;
    }
  }
  body.push_back(ReturnStmt::Make({}));
  return Function::Make(name, FunctionType::InCore, std::move(params), std::move(directions), {},
                        SeqStmts::Make(std::move(body)), Span("kernels.py", 1, 1));
}

// Runs InitMemRef, MemoryReuse, AllocateMemoryAddr and InsertPipeSync
// (loaded as plugins), so the tiles have the addresses the backend places
// them at and the pipes the events the chip needs.
inline ProgramPtr Planned(std::vector<FunctionPtr> functions) {
  pass::PassManager manager(pass::ParsePipelineString(
      "name: memory\n"
      "input_properties: [SSAForm, TileMemoryInferred, IncoreTileOps]\n"
      "passes: [InitMemRef, MemoryReuse, AllocateMemoryAddr, InsertPipeSync]\n",
      "memory.yaml"));
  pass::PassContext ctx;
  ctx.set_platform(backend::Platform::Get("a2a3sim"));
  return manager.Run(Program::Make("kernels", std::move(functions)), ctx);
}

inline std::vector<backend::Artifact> Generate(const ProgramPtr& program) {
  auto npu = backend::BackendRegistry::Global().Create("npu");
  backend::BackendContext ctx;
  return backend::RunBackend(*npu, program, ctx);
}

// The source of kernel `function` in the generated artifacts.
inline std::string SourceOf(const std::vector<backend::Artifact>& artifacts, const std::string& function) {
  for (const auto& a : artifacts) {
    if (a.function == function) return a.text;
  }
  ADD_FAILURE() << "no kernel for " << function;
  return "";
}

// The plan-generate pipeline for one kernel: its source.
inline std::string KernelSource(const FunctionPtr& function) {
  return SourceOf(Generate(Planned({function})), function->name);
}

// The CodegenError generating `function` raises.
inline std::string CodegenErrorOf(const FunctionPtr& function) {
  try {
    Generate(Planned({function}));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCodegen) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "the npu backend accepted " << function->name;
  return "";
}

// A generated kernel compiled in process and linked into its own JIT
// session, as the simulator toolchain does: its kernel_entry(args) is renamed
// to pypto_kernel_<f>_entry and an appended adapter pypto_kernel_<f>(args,
// ctx), the runtime's kernel function, calls it and then reports the fault
// the core recorded, with the user's file the kernel's first line names.
class CompiledKernel {
 public:
  CompiledKernel(const std::string& function, const std::string& source) : name_(function) {
    const std::string symbol = "pypto_kernel_" + function;
    jit::CompileOptions options;
    options.name = "kernels/aiv/" + function + ".cpp";
    options.std = "c++20";
    options.freestanding = true;
    options.include_dirs = {std::string(PYPTO_TEST_SOURCE_DIR) + "/sdk/include",
                            std::string(PYPTO_TEST_SOURCE_DIR) + "/core/include"};
    // RunOnce checks the pipe synchronization of what it runs.
    options.defines = {"kernel_entry=" + symbol + "_entry", "PTO_CHECK_PIPE_HAZARDS=1"};
    options.extra_flags = {"-fno-math-errno"};
    backend::Artifact artifact{options.name, backend::ArtifactKind::kKernelSource, std::nullopt, function, source};
    jit::CxxCompiler compiler(std::nullopt);
    session_.AddObject(compiler.Compile(backend::SimulatedKernelSource(artifact), options));
    fn_ = session_.LookupFunction<void(const int64_t*, PyptoRtCoreContext*)>(symbol);
  }

  runtime::Kernel kernel() const { return runtime::Kernel{name_, fn_}; }

 private:
  std::string name_;
  jit::JitSession session_;
  runtime::KernelFn fn_ = nullptr;
};

// Runs `kernel` (`blocks` SPMD blocks) on one simulated cluster of a2a3sim with `args`, checking
// its pipe synchronization; a kernel fault is the pypto::Error WaitAll throws.
inline void RunOnce(const CompiledKernel& kernel, const runtime::TaskArgs& args, bool aic = false, int blocks = 1) {
  backend::SimulatedCores cores(backend::Platform::Get("a2a3sim"), 1);
  cores.CheckPipeHazards(true);
  runtime::Runtime rt(runtime::RuntimeOptions{1, cores.StateFn()});
  rt.Submit(aic ? runtime::KernelSet::Aic(kernel.kernel()) : runtime::KernelSet::Aiv(kernel.kernel()), args, blocks);
  rt.WaitAll();
}

inline std::vector<float> Floats(const runtime::Tensor& t) {
  const float* p = static_cast<const float*>(t.data());
  return std::vector<float>(p, p + t.numel());
}

inline runtime::Tensor FilledFloat(const std::vector<int64_t>& shape, const std::function<float(int64_t)>& value) {
  auto t = runtime::Tensor::Allocate(DataType::FP32, shape);
  float* p = static_cast<float*>(t.data());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = value(i);
  return t;
}

}  // namespace pypto::test
