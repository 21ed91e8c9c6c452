// Error values of the whole project. Every error a user can trigger carries a
// kind (mapped to a Python exception class by the bindings), a message that
// says what to do, and, when known, the source span it points at.
#pragma once

#include <stdexcept>
#include <string>

#include "pypto/support/span.h"

namespace pypto {

enum class ErrorKind {
  kValue,         // bad value from the user (Python ValueError)
  kType,          // wrong type or arity (Python TypeError)
  kIndex,         // out-of-range index (Python IndexError)
  kVerification,  // IR broke an invariant (pypto.VerificationError)
  kPlugin,        // plugin discovery/loading (pypto.PluginError)
  kPipeline,      // pipeline file or pass options (pypto.PipelineError)
  kCodegen,       // a backend cannot translate the program (pypto.CodegenError)
  kIO,            // files (Python OSError)
  kInternal,      // a bug in PyPTO (pypto.InternalError)
  kCompile,       // generated code failed to compile or link (pypto.CompileError)
  kRuntime,       // a kernel faulted or a program could not run (pypto.KernelFault, a RuntimeError)
};

const char* ErrorKindName(ErrorKind kind);

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, Span span = Span());

  ErrorKind kind() const { return kind_; }
  const Span& span() const { return span_; }
  // The message without the location prefix that what() carries.
  const std::string& message() const { return message_; }

 private:
  ErrorKind kind_;
  std::string message_;
  Span span_;
};

[[noreturn]] void ThrowValueError(const std::string& message, const Span& span = Span());
[[noreturn]] void ThrowTypeError(const std::string& message, const Span& span = Span());
[[noreturn]] void ThrowInternalError(const std::string& message, const Span& span = Span());

}  // namespace pypto

// Internal invariant: a failure is a PyPTO bug, never the user's.
#define PYPTO_CHECK(cond, msg)                                                       \
  do {                                                                               \
    if (!(cond)) ::pypto::ThrowInternalError(std::string("check failed: " #cond ": ") + (msg)); \
  } while (0)
