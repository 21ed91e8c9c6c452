"""Explicit dispatch: a ChipWorker, device-resident tensors, and registered programs.

A kernel call (``kernel(*args)``) binds host tensors for one run. For a hot
loop, or data that should stay on the device between programs (weights, a KV
cache), a :class:`ChipWorker` allocates :class:`DeviceTensor` memory once,
copies to and from it explicitly, and runs compiled programs on it with
:meth:`ChipWorker.run` or a registered handle. On the simulated platforms the
device memory is memory of this process that the worker owns; the rules are
those of a real device: a DeviceTensor is never copied back implicitly, and
belongs to the worker that allocated it.
"""

from __future__ import annotations

from typing import Any

from pypto import ir
from pypto._core.runtime import Tensor as RuntimeTensor
from pypto.runtime.config import RunConfig

_TORCH_DTYPES = {"float32": ir.DataType.FP32, "float16": ir.DataType.FP16, "bfloat16": ir.DataType.BF16,
                 "int8": ir.DataType.INT8, "int16": ir.DataType.INT16, "int32": ir.DataType.INT32,
                 "int64": ir.DataType.INT64, "uint8": ir.DataType.UINT8, "bool": ir.DataType.BOOL}


def _dtype(dtype: Any) -> ir.DataType:
    if isinstance(dtype, ir.DataType):
        return dtype
    name = str(dtype).replace("torch.", "")
    if name in _TORCH_DTYPES:
        return _TORCH_DTYPES[name]
    raise TypeError(f"unsupported dtype {dtype!r}: pass a torch dtype or a pl dtype such as pl.FP32")


class DeviceTensor:
    """Memory on one worker's device: shape, dtype and the address kernels see.

    Pass it to a compiled program run by its worker; read it back with
    ``worker.copy_from``. JIT kernel calls reject it (they bind host tensors).
    """

    def __init__(self, worker: ChipWorker, tensor: RuntimeTensor) -> None:
        self._worker = worker
        self._tensor: RuntimeTensor | None = tensor

    @property
    def tensor(self) -> RuntimeTensor:
        if self._tensor is None:
            raise ValueError("this DeviceTensor was freed (ChipWorker.free_tensor); allocate a new one")
        return self._tensor

    @property
    def data_ptr(self) -> int:
        return self.tensor.data_ptr

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    @property
    def dtype(self) -> ir.DataType:
        return self.tensor.dtype

    @property
    def worker(self) -> ChipWorker:
        return self._worker

    def __repr__(self) -> str:
        state = "freed" if self._tensor is None else f"{self.dtype.name}{list(self.shape)}"
        return f"DeviceTensor({state})"


class RegistrationHandle:
    """A compiled program registered with a worker: call it like the program."""

    def __init__(self, worker: ChipWorker, compiled: Any) -> None:
        self._worker = worker
        self._compiled: Any = compiled

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._compiled is None:
            raise ValueError("this program was unregistered; register it again with ChipWorker.register")
        return self._worker.run(self._compiled, *args, **kwargs)

    def unregister(self) -> None:
        self._compiled = None


class ChipWorker:
    """One (simulated) chip: allocates device tensors and runs compiled programs on them.

    ``with ChipWorker(config) as w:`` initializes it and closes it at the end,
    freeing every tensor it allocated.
    """

    def __init__(self, config: RunConfig | None = None, *, level: int = 2,
                 runtime: str = "tensormap_and_ringbuffer", enable_sdma: bool = False, auto_init: bool = True) -> None:
        self.config = config or RunConfig()
        self.level = level
        self.runtime = runtime
        self.enable_sdma = enable_sdma
        self._tensors: list[DeviceTensor] = []
        self._open = False
        if auto_init:
            self.init()

    def init(self) -> None:
        self._open = True

    def close(self) -> None:
        for t in self._tensors:
            t._tensor = None
        self._tensors.clear()
        self._open = False

    def __enter__(self) -> ChipWorker:
        if not self._open:
            self.init()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _check_open(self, what: str) -> None:
        if not self._open:
            raise RuntimeError(f"ChipWorker.{what}: the worker is closed; call init() or use `with ChipWorker(...)`")

    # ----------------------------------------------------------------- memory

    def alloc_tensor(self, shape: Any, dtype: Any, *, init: Any = None) -> DeviceTensor:
        """Zero-filled device memory; `init` (a host tensor of that shape) is copied in."""
        self._check_open("alloc_tensor")
        tensor = DeviceTensor(self, RuntimeTensor.empty(list(shape), _dtype(dtype)))
        self._tensors.append(tensor)
        if init is not None:
            self.copy_to(tensor, init)
        return tensor

    def free_tensor(self, tensor: DeviceTensor) -> None:
        self._own(tensor, "free_tensor")
        self._tensors.remove(tensor)
        tensor._tensor = None

    def copy_to(self, dst: DeviceTensor, src: Any) -> None:
        """Host -> device."""
        self._own(dst, "copy_to")
        import numpy

        target = numpy.from_dlpack(dst.tensor)
        source = numpy.from_dlpack(RuntimeTensor(src))
        if target.shape != source.shape:
            raise ValueError(f"ChipWorker.copy_to: shapes differ: device {list(target.shape)}, host {list(source.shape)}")
        numpy.copyto(target, source, casting="no")

    def copy_from(self, dst: Any, src: DeviceTensor) -> Any:
        """Device -> host; returns dst."""
        self._own(src, "copy_from")
        import numpy

        target = numpy.from_dlpack(RuntimeTensor(dst))
        source = numpy.from_dlpack(src.tensor)
        if target.shape != source.shape:
            raise ValueError(f"ChipWorker.copy_from: shapes differ: host {list(target.shape)}, device {list(source.shape)}")
        numpy.copyto(target, source, casting="no")
        return dst

    def _own(self, tensor: DeviceTensor, what: str) -> None:
        self._check_open(what)
        if not isinstance(tensor, DeviceTensor):
            raise TypeError(f"ChipWorker.{what}: expected a DeviceTensor, got {type(tensor).__name__}")
        if tensor.worker is not self:
            raise ValueError(f"ChipWorker.{what}: the DeviceTensor belongs to another worker")
        tensor.tensor  # raises when freed

    # -------------------------------------------------------------------- run

    def run(self, compiled: Any, *args: Any, config: RunConfig | None = None, **kwargs: Any) -> Any:
        """Runs a compiled program; DeviceTensor arguments stay resident, host tensors are bound for the run.

        `config` (else the worker's) counts only for its DFX flags: the program was compiled already.
        """
        self._check_open("run")
        if compiled.platform != self.config.platform:
            raise ValueError(f"ChipWorker.run: the program was compiled for '{compiled.platform}' but this worker "
                             f"runs '{self.config.platform}'; compile with RunConfig(platform='{self.config.platform}')")
        values = compiled._bind(args, kwargs)
        resident = {}
        for name, value in values.items():
            if isinstance(value, DeviceTensor):
                self._own(value, "run")
                resident[name] = value
                values[name] = value.tensor
        result = compiled.run_bound(values, config if config is not None else self.config)
        return _resident_result(result, resident)

    def register(self, compiled: Any) -> RegistrationHandle:
        self._check_open("register")
        return RegistrationHandle(self, compiled)


def _resident_result(result: Any, resident: dict[str, DeviceTensor]) -> Any:
    """Results that are a DeviceTensor's memory come back as that DeviceTensor."""
    def back(value: Any) -> Any:
        if isinstance(value, RuntimeTensor):
            for device in resident.values():
                if device.tensor.data_ptr == value.data_ptr:
                    return device
        return value

    if isinstance(result, tuple):
        return tuple(back(r) for r in result)
    return back(result)
