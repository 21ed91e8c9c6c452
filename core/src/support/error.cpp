#include "pypto/support/error.h"

namespace pypto {

const char* ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kValue: return "ValueError";
    case ErrorKind::kType: return "TypeError";
    case ErrorKind::kIndex: return "IndexError";
    case ErrorKind::kVerification: return "VerificationError";
    case ErrorKind::kPlugin: return "PluginError";
    case ErrorKind::kPipeline: return "PipelineError";
    case ErrorKind::kCodegen: return "CodegenError";
    case ErrorKind::kIO: return "OSError";
    case ErrorKind::kInternal: return "InternalError";
    case ErrorKind::kCompile: return "CompileError";
    case ErrorKind::kRuntime: return "KernelFault";
  }
  return "Error";
}

static std::string WithLocation(const std::string& message, const Span& span) {
  if (!span.known()) return message;
  return span.ToString() + ": " + message;
}

Error::Error(ErrorKind kind, const std::string& message, Span span)
    : std::runtime_error(WithLocation(message, span)), kind_(kind), message_(message), span_(std::move(span)) {}

void ThrowValueError(const std::string& message, const Span& span) { throw Error(ErrorKind::kValue, message, span); }
void ThrowTypeError(const std::string& message, const Span& span) { throw Error(ErrorKind::kType, message, span); }
void ThrowInternalError(const std::string& message, const Span& span) {
  throw Error(ErrorKind::kInternal, message + " (this is a PyPTO bug; please report it)", span);
}

std::string Span::ToString() const {
  if (!known()) return "<unknown>";
  std::string file = filename.empty() ? "<source>" : filename;
  return file + ":" + std::to_string(begin_line) + ":" + std::to_string(begin_col);
}

}  // namespace pypto
