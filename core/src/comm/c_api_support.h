// What the C interface files share: turning exceptions into the thread's
// error text, and finding the running engine.
#pragma once

#include <string>

#include "pypto/comm/registry.h"

namespace pypto::comm::capi {

// One per thread for every pypto_comm_ call: valid until the thread's next call.
inline thread_local std::string t_error;

// Runs `body`; NULL when it succeeded, else its exception's text.
template <typename F>
const char* Guard(F&& body) {
  try {
    body();
    return nullptr;
  } catch (const std::exception& e) {
    t_error = e.what();
    return t_error.c_str();
  }
}

inline Engine& Running(const std::string& op) {
  Engine* engine = Active();
  if (engine == nullptr) {
    throw Error(ErrorKind::kRuntime, "comm " + op +
                                         ": no communication engine runs in this process; distributed ops need "
                                         "the program to run under pld / pypto launch");
  }
  return *engine;
}

}  // namespace pypto::comm::capi
