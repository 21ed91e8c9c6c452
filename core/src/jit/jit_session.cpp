#include "pypto/jit/jit_session.h"

#include <dlfcn.h>

#include <mutex>
#include <utility>

#include <llvm/ExecutionEngine/JITSymbol.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "llvm_target.h"
#include "pypto/support/error.h"

namespace pypto::jit {

namespace {

[[noreturn]] void ThrowJitError(const std::string& what, llvm::Error error, const std::string& fix) {
  throw Error(ErrorKind::kCompile, what + ": " + llvm::toString(std::move(error)) + ". " + fix);
}

// Python loads extension modules, and with them libpypto_core.so, with
// RTLD_LOCAL, which hides their symbols from a process-wide search. A handle on
// this library searches it and its dependencies however it was loaded, so JIT
// code can call the core's runtime C API from Python too.
void* CoreLibraryHandle() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&CoreLibraryHandle), &info) == 0 || info.dli_fname == nullptr) return nullptr;
  return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

}  // namespace

struct JitSession::Impl {
  // ORC reports failures that happen while linking on behalf of a lookup
  // (e.g. an undefined symbol inside an added object) through this hook; they
  // are kept and attached to the lookup's error instead of going to stderr.
  // Declared before `jit` so that they outlive it: its teardown may report.
  std::mutex reported_mutex;
  std::string reported;
  std::unique_ptr<llvm::orc::LLJIT> jit;

  std::string TakeReported() {
    std::lock_guard<std::mutex> lock(reported_mutex);
    return std::exchange(reported, std::string());
  }
};

JitSession::JitSession() : impl_(std::make_unique<Impl>()) {
  InitializeNativeTargetOnce();
  auto jit = llvm::orc::LLJITBuilder().create();
  if (!jit) ThrowJitError("cannot start the JIT for this host", jit.takeError(), "Check that LLVM supports this CPU.");
  impl_->jit = std::move(*jit);
  Impl* impl = impl_.get();
  impl_->jit->getExecutionSession().setErrorReporter([impl](llvm::Error error) {
    std::string text = llvm::toString(std::move(error));
    std::lock_guard<std::mutex> lock(impl->reported_mutex);
    impl->reported += (impl->reported.empty() ? "" : "; ") + text;
  });
  char prefix = impl_->jit->getDataLayout().getGlobalPrefix();
  auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process) ThrowJitError("cannot expose the process's symbols to the JIT", process.takeError(), "");
  impl_->jit->getMainJITDylib().addGenerator(std::move(*process));
  static void* const core_handle = CoreLibraryHandle();
  if (core_handle != nullptr) {
    impl_->jit->getMainJITDylib().addGenerator(
        std::make_unique<llvm::orc::DynamicLibrarySearchGenerator>(llvm::sys::DynamicLibrary(core_handle), prefix));
  }
}

JitSession::~JitSession() = default;

void JitSession::AddObject(const CompiledObject& object) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object.bytes, object.name);
  if (auto error = impl_->jit->addObjectFile(std::move(buffer))) {
    ThrowJitError("cannot add the object of '" + object.name + "' to the JIT session", std::move(error),
                  "A symbol may be defined only once per session: give kernels distinct names or use a fresh "
                  "JitSession.");
  }
}

void JitSession::AddModule(std::unique_ptr<llvm::LLVMContext> context, std::unique_ptr<llvm::Module> module) {
  // The ThreadSafeModule owns both from here on and destroys the module before
  // its context, whichever way this function leaves.
  llvm::orc::ThreadSafeModule tsm(std::move(module), std::move(context));
  std::string name;
  std::string problems;
  bool broken = tsm.withModuleDo([&](llvm::Module& m) {
    name = m.getModuleIdentifier();
    llvm::raw_string_ostream stream(problems);
    return llvm::verifyModule(m, &stream);
  });
  if (broken) {
    throw Error(ErrorKind::kCompile, "LLVM module '" + name + "' is malformed: " + problems +
                                         "The module is generated code: this is a bug in the code generator.");
  }
  if (auto error = impl_->jit->addIRModule(std::move(tsm))) {
    ThrowJitError("cannot add LLVM module '" + name + "' to the JIT session", std::move(error),
                  "A symbol may be defined only once per session: give kernels distinct names or use a fresh "
                  "JitSession.");
  }
}

void JitSession::AddModuleText(const std::string& name, const std::string& ir_text) {
  auto context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diagnostic;
  auto buffer = llvm::MemoryBuffer::getMemBuffer(ir_text, name, /*RequiresNullTerminator=*/false);
  std::unique_ptr<llvm::Module> module = llvm::parseIR(buffer->getMemBufferRef(), diagnostic, *context);
  if (!module) {
    throw Error(ErrorKind::kCompile,
                "LLVM IR '" + name + "' does not parse: line " + std::to_string(diagnostic.getLineNo()) + ":" +
                    std::to_string(diagnostic.getColumnNo()) + ": " + diagnostic.getMessage().str() +
                    ". If PyPTO generated it, report it together with the program; if you edited it, fix that line.",
                Span(name, diagnostic.getLineNo(), diagnostic.getColumnNo()));
  }
  module->setModuleIdentifier(name);
  AddModule(std::move(context), std::move(module));
}

void JitSession::DefineSymbol(const std::string& name, void* address) {
  auto& jit = *impl_->jit;
  llvm::orc::SymbolMap symbols;
  symbols[jit.mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
      llvm::pointerToJITTargetAddress(address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  if (auto error = jit.getMainJITDylib().define(llvm::orc::absoluteSymbols(std::move(symbols)))) {
    ThrowJitError("cannot define symbol '" + name + "' in the JIT session", std::move(error),
                  "A symbol may be defined once per session.");
  }
}

void* JitSession::Lookup(const std::string& name) {
  impl_->TakeReported();  // only failures of this lookup belong in its error
  auto address = impl_->jit->lookup(name);
  if (!address) {
    std::string reported = impl_->TakeReported();
    std::string detail = llvm::toString(address.takeError());
    if (!reported.empty()) detail += " (while linking: " + reported + ")";
    throw Error(ErrorKind::kCompile,
                "JIT symbol '" + name + "' could not be resolved: " + detail +
                    ". Check that a module added to this session defines it with extern \"C\" linkage, and that "
                    "every function that module calls is defined by the session or exported by the process.");
  }
  return address->toPtr<void*>();
}

void* JitSession::Find(const std::string& name) {
  impl_->TakeReported();
  auto address = impl_->jit->lookup(name);
  if (address) return address->toPtr<void*>();
  llvm::consumeError(address.takeError());
  impl_->TakeReported();
  return nullptr;
}

}  // namespace pypto::jit
