// DLPack interop: the exchange struct torch, numpy and JAX hand out through
// `__dlpack__()`. The layout below is the documented, stable unversioned
// DLPack ABI (DLManagedTensor, v0.x), written from the specification.
#pragma once

#include <cstdint>
#include <string>

#include "pypto/runtime/tensor.h"

namespace pypto::runtime::dlpack {

enum DeviceType : int32_t {
  kCPU = 1,
  kCUDA = 2,
  kCUDAHost = 3,
  kOpenCL = 4,
  kVulkan = 7,
  kMetal = 8,
  kVPI = 9,
  kROCM = 10,
  kROCMHost = 11,
  kExtDev = 12,
  kCUDAManaged = 13,
  kOneAPI = 14,
  kWebGPU = 15,
  kHexagon = 16,
  kMAIA = 17,
};

enum TypeCode : uint8_t {
  kInt = 0,
  kUInt = 1,
  kFloat = 2,
  kOpaqueHandle = 3,
  kBfloat = 4,
  kComplex = 5,
  kBool = 6,
};

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct DLTensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL = row-major
  uint64_t byte_offset;
};

struct ManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(ManagedTensor* self);
};

// DLPack 1.0: the versioned struct, which can say whether the memory may be
// written (consumers such as numpy treat unversioned imports as read-only).
struct Version {
  uint32_t major;
  uint32_t minor;
};

inline constexpr uint64_t kFlagReadOnly = 1;

struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
};

// The capsule names of the Python protocol.
inline constexpr const char* kCapsuleName = "dltensor";
inline constexpr const char* kUsedCapsuleName = "used_dltensor";
inline constexpr const char* kVersionedCapsuleName = "dltensor_versioned";
inline constexpr const char* kUsedVersionedCapsuleName = "used_dltensor_versioned";

const char* DeviceName(int32_t device_type);
// The pypto dtype of a DLPack dtype; a ValueError naming the type otherwise.
ir::DataType ToPyptoDType(DataType dtype);
// The DLPack dtype of a pypto dtype; a ValueError for types DLPack cannot name.
DataType FromPyptoDType(ir::DataType dtype);

// Takes ownership of `managed` (its deleter runs when the last view of the
// returned tensor is gone, and also when this throws). CPU memory only: any
// other device is a ValueError naming it.
Tensor Import(ManagedTensor* managed);
// The same for DLPack 1.0 tensors; the read-only flag makes a read-only
// tensor (Tensor::read_only).
Tensor ImportVersioned(ManagedTensorVersioned* managed);
// A new ManagedTensor referring to `tensor`'s memory and keeping it alive
// until the consumer calls its deleter.
ManagedTensor* Export(const Tensor& tensor);
// The same as a DLPack 1.0 tensor, flagged read-only when the tensor is.
ManagedTensorVersioned* ExportVersioned(const Tensor& tensor);

}  // namespace pypto::runtime::dlpack
