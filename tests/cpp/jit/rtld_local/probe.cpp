// Stands in for Python's _core module: a library linked against the core that
// its host process loads with RTLD_LOCAL.
#include <string>

#include "pypto/jit/jit_session.h"
#include "pypto/support/error.h"

// Returns an empty string when JIT code can resolve a symbol of the core
// library, else the reason.
extern "C" const char* pypto_jit_probe_core_symbol() {
  static std::string result;
  try {
    pypto::jit::JitSession session;
    void* address = session.Lookup("_ZN5pypto13ErrorKindNameENS_9ErrorKindE");
    result = address == reinterpret_cast<void*>(&pypto::ErrorKindName) ? "" : "resolved to the wrong address";
  } catch (const std::exception& e) {
    result = e.what();
  }
  return result.c_str();
}
