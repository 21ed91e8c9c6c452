// Turning Python arrays into runtime tensors, shared by the runtime and
// backend bindings.
#pragma once

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

}  // namespace pypto::python
