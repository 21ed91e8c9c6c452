// Assertions on pypto::Error values shared by the plugin and pass manager tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "pypto/support/error.h"

namespace pypto::testing {

// The error `f` throws; a test failure when it throws none.
template <class F>
Error ErrorFrom(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected a pypto::Error, but nothing was thrown";
  return Error(ErrorKind::kInternal, "<nothing thrown>");
}

inline ::testing::AssertionResult Contains(const std::string& text, const std::string& fragment) {
  if (text.find(fragment) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << fragment << "' not found in:\n" << text;
}

// Sets PYPTO_PLUGIN_PATH for one scope and restores the previous value.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const std::string& value) {
    if (const char* old = std::getenv("PYPTO_PLUGIN_PATH")) previous_ = old;
    setenv("PYPTO_PLUGIN_PATH", value.c_str(), 1);
  }
  ~ScopedPluginPath() {
    if (previous_) {
      setenv("PYPTO_PLUGIN_PATH", previous_->c_str(), 1);
    } else {
      unsetenv("PYPTO_PLUGIN_PATH");
    }
  }
  ScopedPluginPath(const ScopedPluginPath&) = delete;
  ScopedPluginPath& operator=(const ScopedPluginPath&) = delete;

 private:
  std::optional<std::string> previous_;
};

}  // namespace pypto::testing
