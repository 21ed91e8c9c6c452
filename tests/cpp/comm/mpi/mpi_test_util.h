// What the collective tests of test_comm_mpi share: the running engine, this rank and the world size,
// and row-major tensor descriptors for the C ABI's collectives.
#pragma once

#include <cstdint>
#include <vector>

#include "pypto/comm/registry.h"
#include "pypto/ir/dtype.h"
#include "pypto/runtime/c_api_comm.h"

namespace pypto::testing::mpi {

inline comm::Engine& E() { return *comm::Active(); }
inline int Me() { return E().Rank(); }
inline int N() { return E().WorldSize(); }

// A row-major descriptor of `data`.
inline PyptoRtTensorDesc Desc(void* data, std::vector<int64_t> shape, ir::DataType dtype) {
  PyptoRtTensorDesc d{};
  d.data = data;
  d.ndim = static_cast<int32_t>(shape.size());
  d.dtype = static_cast<int32_t>(dtype.code());
  int64_t stride = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    d.shape[i] = shape[i];
    d.strides[i] = stride;
    stride *= shape[i];
  }
  return d;
}

}  // namespace pypto::testing::mpi
