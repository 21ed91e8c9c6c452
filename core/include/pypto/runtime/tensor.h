// Tensors the runtime hands to kernels: a view (data pointer, dtype, shape,
// strides in elements) on a storage root. A root is either external memory
// wrapped without copying (torch, numpy, a caller's buffer) or memory the
// runtime allocated (64-byte aligned, zero-filled). Views of a tensor share its
// root and record where they sit in it, so the scheduler can tell disjoint
// windows of one buffer apart.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <boost/container/static_vector.hpp>

#include "pypto/ir/dtype.h"
#include "pypto/runtime/c_api.h"

namespace pypto::runtime {

inline constexpr int64_t kTensorAlignment = 64;

// A tensor's shape, strides or coordinates, stored inline: tensors are
// copied into every task and access record, and a heap allocation per copy
// would cost more than the bookkeeping itself.
using Dims = boost::container::static_vector<int64_t, PYPTO_RT_MAX_DIMS>;

// The memory a tensor and its views live in. `release` runs when the last
// tensor referring to it goes away (it frees owned memory or drops the
// reference an external owner was given).
class Storage {
 public:
  Storage(void* base, int64_t bytes, std::function<void()> release);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  void* base() const { return base_; }
  int64_t bytes() const { return bytes_; }

 private:
  void* base_;
  int64_t bytes_;
  std::function<void()> release_;
};

class Tensor {
 public:
  Tensor() = default;

  // Wraps memory the caller owns. `strides` empty means row-major; `release`
  // runs when the last view is gone. Shapes must be non-negative and at most
  // PYPTO_RT_MAX_DIMS dims.
  static Tensor Wrap(void* data, ir::DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                     std::function<void()> release = {});
  // New zero-filled row-major memory, 64-byte aligned.
  static Tensor Allocate(ir::DataType dtype, std::vector<int64_t> shape);

  // The window [offsets, offsets + shape) of this tensor, sharing its root.
  // A ValueError when the window leaves the tensor or the ranks differ.
  Tensor View(const Dims& offsets, const Dims& shape) const;

  // The same view, marked as memory kernels must not write (a read-only
  // numpy array, a bytes object); views of it inherit the mark.
  Tensor AsReadOnly() const;
  bool read_only() const { return read_only_; }

  bool defined() const { return storage_ != nullptr; }
  void* data() const;  // element [0, ..., 0]
  ir::DataType dtype() const { return dtype_; }
  const Dims& shape() const { return shape_; }
  const Dims& strides() const { return strides_; }
  int64_t ndim() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numel() const;
  // Element offset of data() from the root's base element (may be fractional
  // bytes for 4-bit types, hence elements).
  int64_t element_offset() const { return element_offset_; }
  bool is_contiguous() const;
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  // Where this view sits in the tensor it was first wrapped or allocated as:
  // per-dim start coordinates, in the root tensor's index space.
  const Dims& root_origin() const { return root_origin_; }
  const Dims& root_strides() const { return root_strides_; }

  // [lo, hi) addresses any element can occupy; empty tensors give lo == hi.
  std::pair<uintptr_t, uintptr_t> ByteRange() const;
  // True unless the two tensors provably touch no common byte: disjoint byte
  // ranges, or disjoint rectangles of one root whose layout gives every
  // element its own address.
  bool MayOverlap(const Tensor& other) const;

  PyptoRtTensorDesc Describe() const;
  std::string ToString() const;  // "FP32[4, 8] strides [8, 1]"
  // The view's elements in row-major order, packed (sub-byte dtypes: whole
  // bytes per element are not formed; their bytes are copied as stored).
  std::vector<uint8_t> PackedBytes() const;

 private:
  std::shared_ptr<Storage> storage_;
  ir::DataType dtype_;
  Dims shape_;
  Dims strides_;
  int64_t element_offset_ = 0;
  Dims root_origin_;
  Dims root_strides_;
  bool root_unique_addresses_ = true;
  bool read_only_ = false;
};

// The element size in bytes used for address arithmetic (4-bit types: packed
// two per byte, so views must start on an even element).
int64_t ElementBits(ir::DataType dtype);

}  // namespace pypto::runtime
