// Turning Python arrays into runtime tensors, shared by the runtime and
// backend bindings.
#pragma once

#include <functional>
#include <memory>

#include "casters.h"
#include "pypto/runtime/tensor.h"

namespace pypto::python {

// A runtime.Tensor as is; a torch.Tensor, numpy.ndarray or any object with
// __dlpack__ or the buffer protocol as a tensor sharing its memory, which
// keeps the object alive.
runtime::Tensor TensorFromPython(py::handle obj);

// Like TensorFromPython, except that a plain CPU torch.Tensor is wrapped
// without a reference to it (`*borrowed` says so): releasing it later then
// needs no GIL. Only for a caller that holds `obj` for as long as the
// runtime may read the memory, and never lets the tensor reach Python.
runtime::Tensor TensorFromPythonBorrowed(py::handle obj, bool* borrowed);

// A tensor's release callback that drops `held` (a Python object, or a
// buffer view of one) with the GIL taken: the last view of a tensor may go
// away on a worker thread.
template <typename T>
std::function<void()> ReleaseUnderGil(std::shared_ptr<T> held) {
  return [held = std::move(held)]() mutable {
    py::gil_scoped_acquire gil;
    held.reset();
  };
}

// A release callback that keeps `obj` alive until the tensor's last view is gone.
inline std::function<void()> KeepAlive(py::handle obj) {
  return ReleaseUnderGil(std::make_shared<py::object>(py::reinterpret_borrow<py::object>(obj)));
}

}  // namespace pypto::python
