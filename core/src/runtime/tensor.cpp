#include "pypto/runtime/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>

#include "pypto/support/error.h"

namespace pypto::runtime {

namespace {

template <typename Values>
std::string Join(const Values& v) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
  return os.str();
}

template <typename Values>
Values RowMajorStrides(const Values& shape) {
  Values strides(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) strides[i - 1] = strides[i] * std::max<int64_t>(shape[i], 1);
  return strides;
}

void CheckShape(const std::vector<int64_t>& shape, const char* what) {
  if (shape.size() > PYPTO_RT_MAX_DIMS) {
    ThrowValueError(std::string(what) + ": tensors have at most " + std::to_string(PYPTO_RT_MAX_DIMS) +
                    " dims, got shape " + Join(shape));
  }
  for (int64_t d : shape) {
    if (d < 0) ThrowValueError(std::string(what) + ": negative dim in shape " + Join(shape));
  }
}

// Whether distinct indices always reach distinct elements: sorting dims by
// |stride|, each stride must exceed the span of the dims inside it.
bool UniqueAddresses(const Dims& shape, const Dims& strides) {
  boost::container::static_vector<size_t, PYPTO_RT_MAX_DIMS> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return std::llabs(strides[a]) < std::llabs(strides[b]); });
  int64_t span = 0;  // elements covered by the inner dims, minus one
  for (size_t i : order) {
    if (shape[i] <= 1) continue;
    int64_t stride = std::llabs(strides[i]);
    if (stride <= span) return false;
    span += stride * (shape[i] - 1);
  }
  return true;
}

}  // namespace

int64_t ElementBits(ir::DataType dtype) { return dtype.bits(); }

Storage::Storage(void* base, int64_t bytes, std::function<void()> release)
    : base_(base), bytes_(bytes), release_(std::move(release)) {}

Storage::~Storage() {
  if (release_) release_();
}

Tensor Tensor::Wrap(void* data, ir::DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> strides,
                    std::function<void()> release) {
  CheckShape(shape, "Tensor.wrap");
  if (strides.empty()) strides = RowMajorStrides(shape);
  if (strides.size() != shape.size()) {
    ThrowValueError("Tensor.wrap: shape " + Join(shape) + " has " + std::to_string(shape.size()) + " dims but strides " +
                    Join(strides) + " have " + std::to_string(strides.size()));
  }
  if (data == nullptr && std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>()) != 0) {
    ThrowValueError("Tensor.wrap: a non-empty tensor of shape " + Join(shape) + " has a null data pointer");
  }
  Tensor t;
  t.dtype_ = dtype;
  t.shape_.assign(shape.begin(), shape.end());
  t.strides_.assign(strides.begin(), strides.end());
  t.root_origin_.assign(t.shape_.size(), 0);
  t.root_strides_ = t.strides_;
  t.root_unique_addresses_ = UniqueAddresses(t.shape_, t.strides_);
  // The storage base is the element at index 0; byte ranges are measured from
  // data pointers, so negative strides need no special base.
  auto [lo, hi] = t.ByteRange();
  t.storage_ = std::make_shared<Storage>(data, static_cast<int64_t>(hi - lo), std::move(release));
  return t;
}

Tensor Tensor::Allocate(ir::DataType dtype, std::vector<int64_t> shape) {
  CheckShape(shape, "Tensor.create");
  int64_t count = std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>());
  int64_t bytes = dtype.StorageBytes(count);
  int64_t rounded = std::max<int64_t>((bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment,
                                      kTensorAlignment);
  void* memory = std::aligned_alloc(kTensorAlignment, static_cast<size_t>(rounded));
  if (memory == nullptr) {
    ThrowValueError("Tensor.create: could not allocate " + std::to_string(bytes) + " bytes for " +
                    std::string(dtype.name()) + Join(shape));
  }
  std::memset(memory, 0, static_cast<size_t>(rounded));
  Tensor t = Wrap(memory, dtype, std::move(shape), {}, [memory] { std::free(memory); });
  return t;
}

Tensor Tensor::View(const Dims& offsets, const Dims& shape) const {
  if (offsets.size() != shape_.size() || shape.size() != shape_.size()) {
    ThrowValueError("Tensor.view: a view of " + ToString() + " needs " + std::to_string(shape_.size()) +
                    " offsets and dims, got offsets " + Join(offsets) + " and shape " + Join(shape));
  }
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (offsets[i] < 0 || shape[i] < 0 || offsets[i] + shape[i] > shape_[i]) {
      ThrowValueError("Tensor.view: window offsets " + Join(offsets) + " shape " + Join(shape) + " leaves " +
                      ToString() + " in dim " + std::to_string(i));
    }
  }
  Tensor v = *this;
  v.shape_ = shape;
  for (size_t i = 0; i < shape_.size(); ++i) {
    v.element_offset_ += offsets[i] * strides_[i];
    v.root_origin_[i] += offsets[i];
  }
  if (dtype_.is_sub_byte() && v.element_offset_ % 2 != 0) {
    ThrowValueError("Tensor.view: a view of " + ToString() + " at offsets " + Join(offsets) +
                    " starts inside a byte; 4-bit tensors need views starting on an even element");
  }
  return v;
}

Tensor Tensor::AsReadOnly() const {
  Tensor t = *this;
  t.read_only_ = true;
  return t;
}

void* Tensor::data() const {
  if (!storage_) return nullptr;
  return static_cast<char*>(storage_->base()) + element_offset_ * ElementBits(dtype_) / 8;
}

int64_t Tensor::numel() const {
  return std::accumulate(shape_.begin(), shape_.end(), int64_t{1}, std::multiplies<>());
}

bool Tensor::is_contiguous() const { return strides_ == RowMajorStrides(shape_); }

std::vector<uint8_t> Tensor::PackedBytes() const {
  const int64_t bits = ElementBits(dtype_);
  const auto* base = static_cast<const uint8_t*>(data());
  if (numel() == 0 || base == nullptr) return {};
  if (is_contiguous() || bits % 8 != 0) {
    auto [lo, hi] = ByteRange();
    return std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(lo), reinterpret_cast<const uint8_t*>(hi));
  }
  const size_t item = static_cast<size_t>(bits / 8);
  std::vector<uint8_t> out(static_cast<size_t>(numel()) * item);
  uint8_t* next = out.data();
  // An odometer over every dim but the last; each step copies one innermost row.
  const size_t rank = shape_.size();
  const int64_t cols = rank == 0 ? 1 : shape_[rank - 1];
  const int64_t col_stride = rank == 0 ? 1 : strides_[rank - 1];
  std::vector<int64_t> index(rank > 0 ? rank - 1 : 0, 0);
  for (;;) {
    int64_t offset = 0;
    for (size_t d = 0; d + 1 < rank; ++d) offset += index[d] * strides_[d];
    for (int64_t c = 0; c < cols; ++c) {
      std::memcpy(next, base + (offset + c * col_stride) * static_cast<int64_t>(item), item);
      next += item;
    }
    size_t d = index.size();
    while (d > 0 && ++index[d - 1] == shape_[d - 1]) index[--d] = 0;
    if (d == 0) break;
  }
  return out;
}

std::pair<uintptr_t, uintptr_t> Tensor::ByteRange() const {
  auto begin = reinterpret_cast<uintptr_t>(data());
  if (numel() == 0) return {begin, begin};
  int64_t low = 0, high = 0;  // element offsets of the extreme elements
  for (size_t i = 0; i < shape_.size(); ++i) {
    int64_t reach = (shape_[i] - 1) * strides_[i];
    (reach < 0 ? low : high) += reach;
  }
  int64_t bits = ElementBits(dtype_);
  auto lo = static_cast<intptr_t>(begin) + low * bits / 8;
  auto hi = static_cast<intptr_t>(begin) + ((high + 1) * bits + 7) / 8;
  return {static_cast<uintptr_t>(lo), static_cast<uintptr_t>(hi)};
}

bool Tensor::MayOverlap(const Tensor& other) const {
  auto [a_lo, a_hi] = ByteRange();
  auto [b_lo, b_hi] = other.ByteRange();
  if (a_lo == a_hi || b_lo == b_hi || a_hi <= b_lo || b_hi <= a_lo) return false;
  bool same_root_layout = storage_ == other.storage_ && root_unique_addresses_ && root_strides_ == other.root_strides_;
  if (!same_root_layout) return true;
  for (size_t i = 0; i < shape_.size(); ++i) {
    int64_t a_begin = root_origin_[i], a_end = a_begin + shape_[i];
    int64_t b_begin = other.root_origin_[i], b_end = b_begin + other.shape_[i];
    if (a_end <= b_begin || b_end <= a_begin) return false;
  }
  return true;
}

PyptoRtTensorDesc Tensor::Describe() const {
  PyptoRtTensorDesc d{};
  d.data = data();
  d.ndim = static_cast<int32_t>(shape_.size());
  d.dtype = static_cast<int32_t>(dtype_.code());
  for (size_t i = 0; i < shape_.size(); ++i) {
    d.shape[i] = shape_[i];
    d.strides[i] = strides_[i];
  }
  return d;
}

std::string Tensor::ToString() const {
  if (!defined()) return "<undefined tensor>";
  return std::string(dtype_.name()) + Join(shape_) + " strides " + Join(strides_) + (read_only_ ? " read-only" : "");
}

}  // namespace pypto::runtime
