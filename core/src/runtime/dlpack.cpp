#include "pypto/runtime/dlpack.h"

#include <memory>
#include <vector>

#include "pypto/support/error.h"

namespace pypto::runtime::dlpack {

namespace {

std::string DTypeText(DataType dt) {
  static const char* kCodes[] = {"int", "uint", "float", "opaque_handle", "bfloat", "complex", "bool"};
  if (dt.code >= 7) return "type code " + std::to_string(dt.code) + " (" + std::to_string(dt.bits) + " bits)";
  std::string text = kCodes[dt.code] + std::to_string(dt.bits);
  if (dt.lanes != 1) text += "x" + std::to_string(dt.lanes);
  return text;
}

// What an exported tensor keeps alive: the tensor (and so its storage) plus
// the shape and strides arrays the DLTensor points into.
struct ExportState {
  Tensor tensor;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  ManagedTensor managed{};
  ManagedTensorVersioned versioned{};
};

void DeleteExport(ManagedTensor* self) { delete static_cast<ExportState*>(self->manager_ctx); }
void DeleteVersionedExport(ManagedTensorVersioned* self) { delete static_cast<ExportState*>(self->manager_ctx); }

std::unique_ptr<ExportState> DescribeForExport(const Tensor& tensor) {
  DataType dt = FromPyptoDType(tensor.dtype());
  auto state = std::make_unique<ExportState>();
  state->tensor = tensor;
  state->shape.assign(tensor.shape().begin(), tensor.shape().end());
  state->strides.assign(tensor.strides().begin(), tensor.strides().end());
  DLTensor& dl = state->managed.dl_tensor;
  dl.data = tensor.data();
  dl.device = {kCPU, 0};
  dl.ndim = static_cast<int32_t>(tensor.ndim());
  dl.dtype = dt;
  dl.shape = state->shape.data();
  dl.strides = state->strides.data();
  dl.byte_offset = 0;
  return state;
}

}  // namespace

const char* DeviceName(int32_t device_type) {
  switch (device_type) {
    case kCPU: return "cpu";
    case kCUDA: return "cuda";
    case kCUDAHost: return "cuda_host";
    case kOpenCL: return "opencl";
    case kVulkan: return "vulkan";
    case kMetal: return "metal";
    case kVPI: return "vpi";
    case kROCM: return "rocm";
    case kROCMHost: return "rocm_host";
    case kExtDev: return "ext_dev";
    case kCUDAManaged: return "cuda_managed";
    case kOneAPI: return "oneapi";
    case kWebGPU: return "webgpu";
    case kHexagon: return "hexagon";
    case kMAIA: return "maia";
  }
  return "unknown";
}

ir::DataType ToPyptoDType(DataType dt) {
  if (dt.lanes == 1) {
    switch (dt.code) {
      case kBool:
        if (dt.bits == 8) return ir::DataType::BOOL;
        break;
      case kInt:
        switch (dt.bits) {
          case 8: return ir::DataType::INT8;
          case 16: return ir::DataType::INT16;
          case 32: return ir::DataType::INT32;
          case 64: return ir::DataType::INT64;
        }
        break;
      case kUInt:
        switch (dt.bits) {
          case 8: return ir::DataType::UINT8;
          case 16: return ir::DataType::UINT16;
          case 32: return ir::DataType::UINT32;
          case 64: return ir::DataType::UINT64;
        }
        break;
      case kFloat:
        switch (dt.bits) {
          case 16: return ir::DataType::FP16;
          case 32: return ir::DataType::FP32;
          case 64: return ir::DataType::FP64;
        }
        break;
      case kBfloat:
        if (dt.bits == 16) return ir::DataType::BF16;
        break;
    }
  }
  ThrowValueError("DLPack dtype " + DTypeText(dt) +
                  " has no PyPTO equivalent; supported: bool, int8/16/32/64, uint8/16/32/64, float16/32/64, bfloat16");
}

DataType FromPyptoDType(ir::DataType dtype) {
  switch (dtype.code()) {
    case ir::DataTypeCode::BOOL: return {kBool, 8, 1};
    case ir::DataTypeCode::INT8: return {kInt, 8, 1};
    case ir::DataTypeCode::INT16: return {kInt, 16, 1};
    case ir::DataTypeCode::INT32: return {kInt, 32, 1};
    case ir::DataTypeCode::INT64:
    case ir::DataTypeCode::INDEX: return {kInt, 64, 1};
    case ir::DataTypeCode::UINT8: return {kUInt, 8, 1};
    case ir::DataTypeCode::UINT16: return {kUInt, 16, 1};
    case ir::DataTypeCode::UINT32: return {kUInt, 32, 1};
    case ir::DataTypeCode::UINT64: return {kUInt, 64, 1};
    case ir::DataTypeCode::FP16: return {kFloat, 16, 1};
    case ir::DataTypeCode::FP32: return {kFloat, 32, 1};
    case ir::DataTypeCode::FP64: return {kFloat, 64, 1};
    case ir::DataTypeCode::BF16: return {kBfloat, 16, 1};
    default: break;
  }
  ThrowValueError(std::string("a PyPTO ") + dtype.name() + " tensor cannot be exported through DLPack: it has no DLPack dtype");
}

namespace {

// Wraps `dl` as a tensor whose storage runs `release` when the last view is
// gone. Until then, an error leaves `release` to the caller.
Tensor ImportDL(const DLTensor& dl, std::function<void()> release) {
  if (dl.device.device_type != kCPU && dl.device.device_type != kCUDAHost) {
    ThrowValueError(std::string("a tensor on device '") + DeviceName(dl.device.device_type) + ":" +
                    std::to_string(dl.device.device_id) +
                    "' cannot be passed to PyPTO: the simulated NPU reads host memory; move it to the CPU first "
                    "(for torch: t.cpu())");
  }
  ir::DataType dtype = ToPyptoDType(dl.dtype);
  if (dl.ndim < 0 || dl.ndim > PYPTO_RT_MAX_DIMS) {
    ThrowValueError("a DLPack tensor of " + std::to_string(dl.ndim) + " dims cannot be passed to PyPTO: at most " +
                    std::to_string(PYPTO_RT_MAX_DIMS) + " dims");
  }
  std::vector<int64_t> shape(dl.shape, dl.shape + dl.ndim);
  std::vector<int64_t> strides;
  if (dl.strides != nullptr) strides.assign(dl.strides, dl.strides + dl.ndim);
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  return Tensor::Wrap(data, dtype, std::move(shape), std::move(strides), std::move(release));
}

template <typename Managed>
void CallDeleter(Managed* m) {
  if (m->deleter) m->deleter(m);
}

}  // namespace

Tensor Import(ManagedTensor* managed) {
  std::unique_ptr<ManagedTensor, void (*)(ManagedTensor*)> guard(managed, CallDeleter<ManagedTensor>);
  Tensor t = ImportDL(managed->dl_tensor, [managed] { CallDeleter(managed); });
  guard.release();
  return t;
}

Tensor ImportVersioned(ManagedTensorVersioned* managed) {
  std::unique_ptr<ManagedTensorVersioned, void (*)(ManagedTensorVersioned*)> guard(
      managed, CallDeleter<ManagedTensorVersioned>);
  if (managed->version.major != 1) {
    ThrowValueError("a DLPack " + std::to_string(managed->version.major) + "." +
                    std::to_string(managed->version.minor) + " tensor cannot be read: PyPTO reads DLPack 1.x");
  }
  Tensor t = ImportDL(managed->dl_tensor, [managed] { CallDeleter(managed); });
  guard.release();
  return (managed->flags & kFlagReadOnly) != 0 ? t.AsReadOnly() : t;
}

ManagedTensor* Export(const Tensor& tensor) {
  auto state = DescribeForExport(tensor);
  state->managed.manager_ctx = state.get();
  state->managed.deleter = DeleteExport;
  return &state.release()->managed;
}

ManagedTensorVersioned* ExportVersioned(const Tensor& tensor) {
  auto state = DescribeForExport(tensor);
  ManagedTensorVersioned& v = state->versioned;
  v.version = {1, 0};
  v.manager_ctx = state.get();
  v.deleter = DeleteVersionedExport;
  v.flags = tensor.read_only() ? kFlagReadOnly : 0;
  v.dl_tensor = state->managed.dl_tensor;
  return &state.release()->versioned;
}

}  // namespace pypto::runtime::dlpack
