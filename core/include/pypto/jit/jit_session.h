// One ORC LLJIT session: the objects and LLVM IR modules of a program linked
// into the current process.
//
// Code added to a session stays alive as long as the session. Symbols the
// added code does not define are resolved, in order, against symbols given to
// DefineSymbol and then against the current process (the core's runtime C API,
// libc, libm, libstdc++), so JIT code can call exported functions of the
// process directly.
//
// Thread safety: all member functions may be called concurrently.
//
// LLVM types appear only as forward declarations: code that does not build
// modules itself (plugins, SDK users) needs no LLVM headers.
#pragma once

#include <memory>
#include <string>

#include "pypto/jit/cxx_compiler.h"

namespace llvm {
class LLVMContext;
class Module;
}  // namespace llvm

namespace pypto::jit {

class JitSession {
 public:
  JitSession();
  ~JitSession();
  JitSession(const JitSession&) = delete;
  JitSession& operator=(const JitSession&) = delete;

  // Throws pypto::Error (kCompile) when the object is malformed or defines a
  // symbol the session already has.
  void AddObject(const CompiledObject& object);
  // A module built with IRBuilder; it is verified first and a broken module is
  // a kCompile error naming the module and the verifier's complaint. The
  // context must be the one the module was built in.
  void AddModule(std::unique_ptr<llvm::LLVMContext> context, std::unique_ptr<llvm::Module> module);
  // A module in LLVM's textual IR (an orchestration/<f>.ll file); `name`
  // identifies it in errors. Text that does not parse is a kCompile error
  // with the line and column.
  void AddModuleText(const std::string& name, const std::string& ir_text);
  // Makes `name` resolve to `address` in code added later.
  void DefineSymbol(const std::string& name, void* address);

  // Address of `name`; throws pypto::Error (kCompile) naming the symbol when
  // neither the session nor the process defines it, or when linking the code
  // that should define it fails (e.g. an unresolved reference inside it).
  void* Lookup(const std::string& name);
  // The symbol's address, or null when no module defines it (an optional symbol).
  void* Find(const std::string& name);
  template <typename Fn>
  Fn* LookupFunction(const std::string& name) {
    return reinterpret_cast<Fn*>(Lookup(name));
  }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pypto::jit
