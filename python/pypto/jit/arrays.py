"""What a kernel argument is: a tensor (torch or numpy) with a shape and a PyPTO dtype, or a scalar.

Neither torch nor numpy is imported here: a value is recognised by its
module, so a program that uses only one of them never loads the other.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pypto import ir

DT = ir.DataType

# torch dtype attribute name -> PyPTO dtype. Names missing from the installed
# torch (older releases lack the unsigned and float8 types) are skipped.
TORCH_DTYPES: dict[str, ir.DataType] = {
    "bool": DT.BOOL,
    "int8": DT.INT8,
    "int16": DT.INT16,
    "int32": DT.INT32,
    "int64": DT.INT64,
    "uint8": DT.UINT8,
    "uint16": DT.UINT16,
    "uint32": DT.UINT32,
    "uint64": DT.UINT64,
    "float16": DT.FP16,
    "bfloat16": DT.BF16,
    "float32": DT.FP32,
    "float64": DT.FP64,
    "float8_e4m3fn": DT.FP8E4M3FN,
    "float8_e5m2": DT.FP8E5M2,
    "float8_e8m0fnu": DT.FP8E8M0,
    "float4_e2m1fn_x2": DT.FP4,
}

# torch packs two FP4 values into one float4_e2m1fn_x2 element; PyPTO counts
# FP4 elements, so the last dimension doubles.
PACKED_TWO_PER_ELEMENT = {"float4_e2m1fn_x2"}

# numpy dtype name -> PyPTO dtype; bfloat16 and the float8 names come from
# ml_dtypes when it is installed.
NUMPY_DTYPES: dict[str, ir.DataType] = {
    "bool": DT.BOOL,
    "int8": DT.INT8,
    "int16": DT.INT16,
    "int32": DT.INT32,
    "int64": DT.INT64,
    "uint8": DT.UINT8,
    "uint16": DT.UINT16,
    "uint32": DT.UINT32,
    "uint64": DT.UINT64,
    "float16": DT.FP16,
    "bfloat16": DT.BF16,
    "float32": DT.FP32,
    "float64": DT.FP64,
    "float8_e4m3fn": DT.FP8E4M3FN,
    "float8_e5m2": DT.FP8E5M2,
    "float8_e8m0fnu": DT.FP8E8M0,
}


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument as the compiler sees it."""

    shape: tuple[int, ...]
    dtype: ir.DataType
    library: str  # "torch" or "numpy"

    def describe(self) -> str:
        return f"{self.library} tensor of shape {list(self.shape)} and dtype {self.dtype.name}"


class UnsupportedArgument(TypeError):
    """The value is neither a supported tensor nor a Python scalar; the message says why."""


def _module_root(value: object) -> str:
    return type(value).__module__.split(".")[0]


@functools.lru_cache(maxsize=64)
def _torch_class(kind: type) -> bool:
    """A torch class or a subclass of one (pld.window views are torch.Tensor subclasses)."""
    return any(c.__module__.split(".")[0] == "torch" for c in kind.__mro__)


def is_torch_tensor(value: object) -> bool:
    return _torch_class(type(value)) and hasattr(value, "dtype") and hasattr(value, "shape")


def is_numpy_array(value: object) -> bool:
    return _module_root(value) == "numpy" and type(value).__name__ == "ndarray"


def is_tensor(value: object) -> bool:
    return is_torch_tensor(value) or is_numpy_array(value)


def is_scalar(value: object) -> bool:
    """Python numbers and numpy scalars (np.float32(1.0)) are scalars."""
    if isinstance(value, (bool, int, float)):
        return True
    return _module_root(value) == "numpy" and hasattr(value, "item") and getattr(value, "shape", None) == ()


def scalar_value(value: object) -> bool | int | float:
    """A scalar argument as a plain Python value."""
    if isinstance(value, (bool, int, float)):
        return value
    return value.item()  # type: ignore[attr-defined]


def _torch_dtype_name(dtype: object) -> str:
    return str(dtype).removeprefix("torch.")


def supported_torch_dtypes() -> list[str]:
    import torch

    return [name for name in TORCH_DTYPES if hasattr(torch, name)]


def tensor_arg(value: object) -> TensorArg:
    """Shape and PyPTO dtype of a torch tensor or numpy array."""
    if is_torch_tensor(value):
        name = _torch_dtype_name(value.dtype)  # type: ignore[attr-defined]
        if name not in TORCH_DTYPES:
            raise UnsupportedArgument(f"torch dtype {name} has no PyPTO dtype; supported: "
                                      f"{', '.join(supported_torch_dtypes())}")
        shape = tuple(int(d) for d in value.shape)  # type: ignore[attr-defined]
        if name in PACKED_TWO_PER_ELEMENT and shape:
            shape = shape[:-1] + (shape[-1] * 2,)
        return TensorArg(shape, TORCH_DTYPES[name], "torch")
    if is_numpy_array(value):
        name = value.dtype.name  # type: ignore[attr-defined]
        if name not in NUMPY_DTYPES:
            raise UnsupportedArgument(f"numpy dtype {name} has no PyPTO dtype; supported: "
                                      f"{', '.join(NUMPY_DTYPES)} (bfloat16 and float8 through ml_dtypes)")
        return TensorArg(tuple(int(d) for d in value.shape), NUMPY_DTYPES[name], "numpy")  # type: ignore[attr-defined]
    if type(value).__name__ == "DeviceTensor":
        raise UnsupportedArgument("a DeviceTensor lives on one ChipWorker and kernel calls bind host tensors: "
                                  "compile the kernel (kernel.compile(...)) and run it with worker.run(compiled, ...) "
                                  "or worker.register(compiled)")
    raise UnsupportedArgument(f"expected a torch tensor, a numpy array or a Python scalar, "
                              f"got {type(value).__module__}.{type(value).__qualname__}")
