// pypto._core.runtime: tensors shared with torch and numpy without copies.
// Import takes DLPack (`__dlpack__`) or, failing that, the buffer protocol;
// export hands out a DLPack capsule, so torch.from_dlpack / numpy.from_dlpack
// read the same memory.
#include <map>
#include <memory>
#include <optional>

#include "pypto/runtime/dlpack.h"
#include "pypto/runtime/runtime.h"
#include "pypto/runtime/trace.h"
#include "tensor_import.h"
#include "pypto/runtime/tensor.h"
#include "pypto/support/error.h"

namespace pypto::python {

namespace {

using runtime::Tensor;
namespace dlpack = runtime::dlpack;

std::string TypeName(py::handle obj) { return py::str(py::type::of(obj).attr("__name__")); }

Tensor FromDlpack(py::handle obj) {
  if (py::hasattr(obj, "__dlpack_device__")) {
    auto device = obj.attr("__dlpack_device__")().cast<std::pair<int32_t, int32_t>>();
    if (device.first != dlpack::kCPU && device.first != dlpack::kCUDAHost) {
      ThrowValueError(std::string("a ") + TypeName(obj) + " on device '" + dlpack::DeviceName(device.first) + ":" +
                      std::to_string(device.second) +
                      "' cannot be passed to PyPTO: the simulated NPU reads host memory; move it to the CPU first "
                      "(for torch: t.cpu())");
    }
  }
  // DLPack 1.0 first: it can carry read-only memory (numpy refuses to export
  // a read-only array the old way). Producers predating it reject the keyword.
  py::object capsule;
  try {
    capsule = obj.attr("__dlpack__")(py::arg("max_version") = py::make_tuple(1, 0));
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_TypeError)) throw;
    capsule = obj.attr("__dlpack__")();
  }
  if (PyCapsule_IsValid(capsule.ptr(), dlpack::kVersionedCapsuleName)) {
    auto* managed =
        static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::kVersionedCapsuleName));
    // The tensor owns the struct now: renaming the capsule stops its
    // destructor from freeing it too.
    PyCapsule_SetName(capsule.ptr(), dlpack::kUsedVersionedCapsuleName);
    return dlpack::ImportVersioned(managed);
  }
  if (PyCapsule_IsValid(capsule.ptr(), dlpack::kCapsuleName)) {
    auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), dlpack::kCapsuleName));
    PyCapsule_SetName(capsule.ptr(), dlpack::kUsedCapsuleName);
    return dlpack::Import(managed);
  }
  ThrowTypeError(std::string("pypto.runtime.Tensor: ") + TypeName(obj) +
                 ".__dlpack__() did not return an unused DLPack capsule");
}

std::optional<ir::DataType> BufferDType(const py::buffer_info& info) {
  std::string format = info.format;
  if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@')) format = format.substr(1);
  if (format.size() != 1) return std::nullopt;
  bool is_float = format == "e" || format == "f" || format == "d";
  bool is_bool = format == "?";
  bool is_signed = std::string("bhilq").find(format) != std::string::npos;
  bool is_unsigned = std::string("BHILQ").find(format) != std::string::npos;
  int bits = static_cast<int>(info.itemsize) * 8;
  for (const ir::DataType& d : ir::DataType::All()) {
    if (d.bits() != bits || d.is_index() || d.code() == ir::DataTypeCode::TASK_ID) continue;
    if ((is_float && d.is_float() && d != ir::DataType::BF16 && !d.is_sub_byte() && bits >= 16) ||
        (is_bool && d.is_bool()) || (is_signed && d.is_signed_int()) || (is_unsigned && d.is_unsigned_int())) {
      return d;
    }
  }
  return std::nullopt;
}

Tensor FromBuffer(py::handle obj) {
  auto buffer = py::reinterpret_borrow<py::buffer>(obj);
  bool read_only = false;
  std::shared_ptr<py::buffer_info> info;
  try {
    info = std::make_shared<py::buffer_info>(buffer.request(true));
  } catch (const py::error_already_set& e) {
    if (!e.matches(PyExc_BufferError)) throw;
    info = std::make_shared<py::buffer_info>(buffer.request(false));
    read_only = true;
  }
  auto dtype = BufferDType(*info);
  if (!dtype) {
    ThrowValueError(std::string("pypto.runtime.Tensor: a ") + TypeName(obj) + " buffer of format '" + info->format +
                    "' has no PyPTO dtype; supported: bool, int8..int64, uint8..uint64, float16/32/64");
  }
  std::vector<int64_t> strides;
  for (py::ssize_t s : info->strides) {
    if (s % info->itemsize != 0) {
      ThrowValueError("pypto.runtime.Tensor: a buffer stride of " + std::to_string(s) +
                      " bytes is not a whole number of " + std::to_string(info->itemsize) + "-byte elements");
    }
    strides.push_back(s / info->itemsize);
  }
  std::vector<int64_t> shape(info->shape.begin(), info->shape.end());
  void* data = info->ptr;
  Tensor t = Tensor::Wrap(data, *dtype, shape, strides, ReleaseUnderGil(std::move(info)));
  return read_only ? t.AsReadOnly() : t;
}

// torch's CPU dtypes PyPTO shares by reading the tensor's fields; nullopt
// for the others. torch dtypes are singletons, so each is named once.
std::optional<ir::DataType> TorchDType(py::handle dtype) {
  static const std::map<std::string, ir::DataType> by_name = {
      {"torch.float32", ir::DataType::FP32}, {"torch.float16", ir::DataType::FP16},
      {"torch.bfloat16", ir::DataType::BF16}, {"torch.int8", ir::DataType::INT8},
      {"torch.int16", ir::DataType::INT16},   {"torch.int32", ir::DataType::INT32},
      {"torch.int64", ir::DataType::INT64},   {"torch.uint8", ir::DataType::UINT8},
      {"torch.bool", ir::DataType::BOOL}};
  static std::map<PyObject*, std::optional<ir::DataType>> seen;
  auto known = seen.find(dtype.ptr());
  if (known != seen.end()) return known->second;
  auto it = by_name.find(py::str(dtype));
  std::optional<ir::DataType> result;
  if (it != by_name.end()) result = it->second;
  dtype.inc_ref();  // the key stays valid
  seen.emplace(dtype.ptr(), result);
  return result;
}

// A plain CPU torch.Tensor, read through its fields: DLPack export costs tens
// of microseconds a tensor and a kernel call binds several. Anything unusual
// (another device, autograd, conjugate or negative views, other dtypes) takes
// the DLPack path, which says what is wrong with it.
bool IsTorchTensorType(py::handle type) {
  // The class is looked up by name once; subclasses of it qualify too.
  static PyObject* torch_tensor = nullptr;
  if (torch_tensor == nullptr) {
    if (!py::hasattr(type, "__module__") || py::str(type.attr("__module__")).cast<std::string>() != "torch" ||
        py::str(type.attr("__name__")).cast<std::string>() != "Tensor") {
      return false;
    }
    torch_tensor = type.ptr();
    Py_INCREF(torch_tensor);
  }
  return type.ptr() == torch_tensor || PyObject_IsSubclass(type.ptr(), torch_tensor) == 1;
}

std::optional<Tensor> FromTorch(py::handle obj, bool borrow) {
  if (!IsTorchTensorType(py::type::of(obj))) return std::nullopt;
  // Complex dtypes (the only ones with conjugate or negative views) are not
  // in TorchDType, so those views never get here.
  static const py::str dtype_name("dtype"), is_cpu("is_cpu"), requires_grad("requires_grad"), shape_name("shape"),
      stride_name("stride"), data_ptr("data_ptr");
  auto dtype = TorchDType(obj.attr(dtype_name));
  if (!dtype || !obj.attr(is_cpu).cast<bool>() || obj.attr(requires_grad).cast<bool>()) return std::nullopt;
  auto shape = obj.attr(shape_name).cast<std::vector<int64_t>>();
  auto strides = obj.attr(stride_name)().cast<std::vector<int64_t>>();
  auto* data = reinterpret_cast<void*>(obj.attr(data_ptr)().cast<uintptr_t>());
  if (borrow) return Tensor::Wrap(data, *dtype, shape, strides, nullptr);
  return Tensor::Wrap(data, *dtype, shape, strides, KeepAlive(obj));
}

Tensor FromObject(py::handle obj, bool borrow_torch, bool* borrowed) {
  if (py::isinstance<Tensor>(obj)) return obj.cast<Tensor>();
  if (auto tensor = FromTorch(obj, borrow_torch)) {
    *borrowed = borrow_torch;
    return *tensor;
  }
  if (py::hasattr(obj, "__dlpack__")) return FromDlpack(obj);
  if (PyObject_CheckBuffer(obj.ptr())) return FromBuffer(obj);
  ThrowTypeError("pypto.runtime.Tensor: expected a torch.Tensor, a numpy.ndarray or another object with __dlpack__ "
                 "or the buffer protocol, got " + TypeName(obj));
}

void DeleteUnusedVersionedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, dlpack::kVersionedCapsuleName)) return;
  auto* managed =
      static_cast<dlpack::ManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, dlpack::kVersionedCapsuleName));
  if (managed && managed->deleter) managed->deleter(managed);
}

// Consumers that ask for DLPack >= 1.0 (max_version=(1, x)) get the versioned
// struct, which marks the memory writable.
bool WantsVersioned(const py::kwargs& kwargs) {
  if (!kwargs.contains("max_version") || kwargs["max_version"].is_none()) return false;
  auto version = kwargs["max_version"].cast<std::pair<int, int>>();
  return version.first >= 1;
}

void DeleteUnusedCapsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, dlpack::kCapsuleName)) return;  // a consumer took it
  auto* managed = static_cast<dlpack::ManagedTensor*>(PyCapsule_GetPointer(capsule, dlpack::kCapsuleName));
  if (managed && managed->deleter) managed->deleter(managed);
}

py::tuple IntTuple(const runtime::Dims& values) {
  py::tuple out(values.size());
  for (size_t i = 0; i < values.size(); ++i) out[i] = py::int_(values[i]);
  return out;
}

}  // namespace

Tensor TensorFromPython(py::handle obj) {
  bool borrowed = false;
  return FromObject(obj, false, &borrowed);
}

Tensor TensorFromPythonBorrowed(py::handle obj, bool* borrowed) {
  *borrowed = false;
  return FromObject(obj, true, borrowed);
}

namespace {

const char* CoreTypeName(runtime::CoreType type) { return type == runtime::CoreType::AIC ? "AIC" : "AIV"; }

// RunTrace and its parts, read-only: what Executable.run_traced recorded.
void BindRunTrace(py::module_& m) {
  using runtime::ArgTrace;
  using runtime::CoreSpan;
  using runtime::OverlapCause;
  using runtime::RunTrace;
  using runtime::TaskTrace;
  using runtime::TensorTrace;
  using runtime::CoreCounters;
  // Counters by name: pipes and memory spaces as the platform files name them.
  auto by_name = [](const auto& names, const auto& values) {
    py::dict d;
    for (size_t i = 0; i < names.size(); ++i) d[names[i]] = values[i];
    return d;
  };
  py::class_<CoreCounters>(m, "CoreCounters",
                           "What the simulated performance model charged one kernel on one core: cycles, busy "
                           "cycles and instructions per pipe (MTE2, MTE1, V, M, MTE3, FIX), bytes read and written "
                           "per memory space (Vec, Mat, Left, Right, Acc, Bias, GM).")
      .def_readonly("measured", &CoreCounters::measured)
      .def_readonly("cycles", &CoreCounters::cycles)
      .def_property_readonly("pipe_busy_cycles",
                             [=](const CoreCounters& c) { return by_name(runtime::kPipeNames, c.pipe_busy_cycles); })
      .def_property_readonly("pipe_instructions",
                             [=](const CoreCounters& c) { return by_name(runtime::kPipeNames, c.pipe_instructions); })
      .def_property_readonly("bytes_read",
                             [=](const CoreCounters& c) { return by_name(runtime::kCountedSpaceNames, c.bytes_read); })
      .def_property_readonly(
          "bytes_written", [=](const CoreCounters& c) { return by_name(runtime::kCountedSpaceNames, c.bytes_written); })
      .def_property_readonly(
          "pipe",
          [](const CoreCounters& c) {
            const runtime::PipeCounters& p = c.pipe;
            py::dict d;
            d["tiles_pushed"] = p.tiles_pushed;
            d["tiles_popped"] = p.tiles_popped;
            d["bytes_pushed"] = p.bytes_pushed;
            d["bytes_popped"] = p.bytes_popped;
            d["frees"] = p.frees;
            d["wait_ns"] = p.wait_ns;
            d["wait_cycles"] = p.wait_cycles;
            return d;
          },
          "The kernel's cross-core pipe traffic (mixed kernels): tiles_pushed, tiles_popped, bytes_pushed, "
          "bytes_popped, frees, wait_ns (host) and wait_cycles (modelled).")
      .def_property_readonly(
          "pipe_waits",
          [](const CoreCounters& c) {
            py::list waits;
            for (const runtime::PipeWait& w : c.pipe_waits) {
              py::dict d;
              d["instruction"] = w.instruction;
              d["ring"] = w.dir == 0 ? "C2V" : "V2C";
              d["lane"] = w.lane;
              d["producer"] = w.producer;
              d["start_ns"] = w.start_ns;
              d["end_ns"] = w.end_ns;
              d["device_start_cycles"] = w.device_start_cycles;
              d["device_end_cycles"] = w.device_end_cycles;
              waits.append(d);
            }
            return waits;
          },
          "The kernel's waits on the cross-core pipe, in program order: instruction, ring (C2V / V2C), lane, "
          "producer, host start_ns / end_ns and modelled device_start_cycles / device_end_cycles since the "
          "kernel's start.");
  py::class_<CoreSpan>(m, "CoreSpan", "One core's share of one block of a traced task (times in ns since the run's "
                                      "first submit).")
      .def_readonly("block_idx", &CoreSpan::block_idx)
      .def_readonly("cluster_id", &CoreSpan::cluster_id)
      .def_property_readonly("core_type", [](const CoreSpan& s) { return CoreTypeName(s.core_type); })
      .def_readonly("lane", &CoreSpan::lane)
      .def_readonly("dispatch_ns", &CoreSpan::dispatch_ns)
      .def_readonly("start_ns", &CoreSpan::start_ns)
      .def_readonly("end_ns", &CoreSpan::end_ns)
      .def_readonly("retire_ns", &CoreSpan::retire_ns)
      .def_readonly("counters", &CoreSpan::counters);
  py::class_<TensorTrace>(m, "TensorTrace", "A buffer (storage root) the run's tensor arguments view.")
      .def_readonly("tensor_id", &TensorTrace::tensor_id)
      .def_readonly("buffer_addr", &TensorTrace::buffer_addr)
      .def_readonly("bytes", &TensorTrace::bytes)
      .def_readonly("dtype", &TensorTrace::dtype)
      .def_readonly("shape", &TensorTrace::shape);
  py::class_<ArgTrace>(m, "ArgTrace", "One argument of a traced task; tensor_id is -1 for a scalar.")
      .def_readonly("index", &ArgTrace::index)
      .def_property_readonly("direction", [](const ArgTrace& a) { return runtime::ArgDirectionName(a.direction); })
      .def_readonly("tensor_id", &ArgTrace::tensor_id)
      .def_readonly("shape", &ArgTrace::shape)
      .def_readonly("offsets", &ArgTrace::offsets)
      .def_readonly("scalar", &ArgTrace::scalar);
  py::class_<OverlapCause>(m, "OverlapCause", "Argument `arg` of a task may overlap argument `pred_arg` of `pred`.")
      .def_readonly("pred", &OverlapCause::pred)
      .def_readonly("arg", &OverlapCause::arg)
      .def_readonly("pred_arg", &OverlapCause::pred_arg);
  py::class_<runtime::ArgDump>(m, "ArgDump",
                               "The contents of a task's tensor argument `arg`, before (inputs) or after (outputs) "
                               "the task ran: the view's elements in row-major order.")
      .def_readonly("arg", &runtime::ArgDump::arg)
      .def_readonly("after", &runtime::ArgDump::after)
      .def_property_readonly("data", [](const runtime::ArgDump& d) {
        return py::bytes(reinterpret_cast<const char*>(d.bytes.data()), d.bytes.size());
      });
  py::class_<TaskTrace>(m, "TaskTrace", "One traced task; ready_ns is -1 when its blocks were never queued.")
      .def_readonly("id", &TaskTrace::id)
      .def_readonly("kernel", &TaskTrace::kernel)
      .def_readonly("kernels", &TaskTrace::kernels)
      .def_readonly("core_num", &TaskTrace::core_num)
      .def_readonly("args", &TaskTrace::args)
      .def_readonly("deps", &TaskTrace::deps, "What the runtime's DependenciesOf returns: explicit and derived.")
      .def_readonly("explicit_deps", &TaskTrace::explicit_deps)
      .def_readonly("overlaps", &TaskTrace::overlaps)
      .def_readonly("submit_begin_ns", &TaskTrace::submit_begin_ns)
      .def_readonly("submit_end_ns", &TaskTrace::submit_end_ns)
      .def_readonly("ready_ns", &TaskTrace::ready_ns)
      .def_readonly("spans", &TaskTrace::spans)
      .def_readonly("dumps", &TaskTrace::dumps, "With an argument dump: by argument, before then after.");
  py::class_<runtime::ScopeTrace>(m, "ScopeTrace",
                                  "One traced scope instance: what its tasks asked of the runtime (times in ns since "
                                  "the run's first traced event).")
      .def_readonly("scope_id", &runtime::ScopeTrace::scope_id)
      .def_readonly("parent_id", &runtime::ScopeTrace::parent_id)
      .def_readonly("mode", &runtime::ScopeTrace::mode)
      .def_readonly("depth", &runtime::ScopeTrace::depth)
      .def_readonly("begin_ns", &runtime::ScopeTrace::begin_ns)
      .def_readonly("end_ns", &runtime::ScopeTrace::end_ns)
      .def_readonly("iterations", &runtime::ScopeTrace::iterations)
      .def_readonly("tasks", &runtime::ScopeTrace::tasks)
      .def_readonly("peak_tasks_in_flight", &runtime::ScopeTrace::peak_tasks_in_flight)
      .def_readonly("dep_edges", &runtime::ScopeTrace::dep_edges)
      .def_readonly("peak_tensormap_entries", &runtime::ScopeTrace::peak_tensormap_entries)
      .def_readonly("heap_bytes", &runtime::ScopeTrace::heap_bytes);
  py::class_<RunTrace>(m, "RunTrace", "What the runtime did in one traced run (Executable.run_traced).")
      .def_readonly("clusters", &RunTrace::clusters)
      .def_readonly("tasks", &RunTrace::tasks)
      .def_readonly("tensors", &RunTrace::tensors)
      .def_readonly("scopes", &RunTrace::scopes);
}

}  // namespace

void BindRuntime(py::module_& m) {
  BindRunTrace(m);
  py::class_<Tensor>(m, "Tensor",
                     "A tensor the runtime hands to kernels: a view on host memory shared with torch or numpy "
                     "(never copied) or allocated by PyPTO.")
      .def(py::init([](py::handle obj) { return TensorFromPython(obj); }), py::arg("obj"),
           "Wraps a torch.Tensor, numpy.ndarray or any object with __dlpack__ or the buffer protocol, sharing its "
           "memory. CPU tensors only.")
      .def_static(
          "empty",
          [](const std::vector<int64_t>& shape, ir::DataType dtype) { return Tensor::Allocate(dtype, shape); },
          py::arg("shape"), py::arg("dtype"), "New zero-filled, 64-byte aligned row-major memory.")
      .def(
          "view",
          [](const Tensor& t, const std::vector<int64_t>& offsets, const std::vector<int64_t>& shape) {
            if (offsets.size() > PYPTO_RT_MAX_DIMS || shape.size() > PYPTO_RT_MAX_DIMS) {
              ThrowValueError("Tensor.view: tensors have at most " + std::to_string(PYPTO_RT_MAX_DIMS) + " dims, got " +
                              std::to_string(std::max(offsets.size(), shape.size())) + " offsets or dims");
            }
            return t.View({offsets.begin(), offsets.end()}, {shape.begin(), shape.end()});
          },
          py::arg("offsets"), py::arg("shape"),
           "The window [offsets, offsets + shape), sharing this tensor's memory.")
      .def_property_readonly("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data()); })
      .def_property_readonly("dtype", &Tensor::dtype)
      .def_property_readonly("shape", [](const Tensor& t) { return IntTuple(t.shape()); })
      .def_property_readonly("strides", [](const Tensor& t) { return IntTuple(t.strides()); },
                             "Strides in elements.")
      .def_property_readonly("ndim", &Tensor::ndim)
      .def_property_readonly("is_contiguous", &Tensor::is_contiguous)
      .def_property_readonly("read_only", &Tensor::read_only,
                             "True for memory kernels must not write (a read-only numpy array, bytes).")
      .def("may_overlap", &Tensor::MayOverlap, py::arg("other"),
           "False only when the two tensors provably share no byte (what orders tasks).")
      .def(
          "__dlpack__",
          [](const Tensor& t, py::args, py::kwargs kwargs) {
            if (WantsVersioned(kwargs)) {
              dlpack::ManagedTensorVersioned* versioned = dlpack::ExportVersioned(t);
              return py::reinterpret_steal<py::object>(
                  PyCapsule_New(versioned, dlpack::kVersionedCapsuleName, DeleteUnusedVersionedCapsule));
            }
            dlpack::ManagedTensor* managed = dlpack::Export(t);
            return py::reinterpret_steal<py::object>(PyCapsule_New(managed, dlpack::kCapsuleName, DeleteUnusedCapsule));
          },
          "A DLPack capsule over this tensor's memory (torch.from_dlpack, numpy.from_dlpack).")
      .def("__dlpack_device__", [](const Tensor&) { return py::make_tuple(static_cast<int>(dlpack::kCPU), 0); })
      .def("__repr__", [](const Tensor& t) { return "pypto.runtime.Tensor(" + t.ToString() + ")"; });
}

}  // namespace pypto::python
