// Kernels and helpers shared by the runtime tests.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "pypto/runtime/runtime.h"
#include "pypto/support/error.h"

namespace pypto::runtime::testing {

inline const PyptoRtTensorDesc& TensorArg(const int64_t* args, int i) {
  return *reinterpret_cast<const PyptoRtTensorDesc*>(args[i]);
}

// Element (r, c) of a 2-D int64 tensor argument.
inline int64_t& At(const PyptoRtTensorDesc& d, int64_t r, int64_t c) {
  return static_cast<int64_t*>(d.data)[r * d.strides[0] + c * d.strides[1]];
}

inline int64_t& At(const Tensor& t, int64_t r, int64_t c) {
  return static_cast<int64_t*>(t.data())[r * t.strides()[0] + c * t.strides()[1]];
}

// The message of the pypto::Error `fn` throws; fails the test if none.
inline std::string ErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a pypto::Error";
  return "";
}

}  // namespace pypto::runtime::testing
