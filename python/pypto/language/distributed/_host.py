"""What ``pld`` offers a ``@pl.jit.host`` orchestrator: the world size, window buffers and host collectives.

They run on every rank as the orchestrator runs (see pypto.runtime.distributed); outside one they raise.
"""

from __future__ import annotations

from typing import Any

from pypto import ir, ops
from pypto.language._ops import OpFunction
from pypto.runtime.distributed import DistributedError, current_host_run

MODES = ("mesh", "ring")
MAX_HOST_RING_RANKS = 16  # spec §7.2: the host ring runs on at most 16 ranks


class HostOnly:
    """A pld function of the host orchestrator; its repr is what the kernel parser shows when a kernel calls it."""

    def __init__(self, name: str, fn: Any, kernel_hint: str) -> None:
        self.name = name
        self.fn = fn
        self.kernel_hint = kernel_hint
        self.__doc__ = fn.__doc__

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current_host_run() is None:
            raise DistributedError(f"pld.{self.name}() runs in a @pl.jit.host orchestrator, which runs it on every "
                                   f"rank; call it there")
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"pld.{self.name}, a host-orchestrator function; {self.kernel_hint}"


def _run() -> Any:
    return current_host_run()


def _world_size() -> int:
    """The number of ranks the program runs on."""
    return _run().world_size


def _alloc_window_buffer(size: Any, dtype: Any = None) -> Any:
    """``pld.alloc_window_buffer(nbytes)`` or ``pld.alloc_window_buffer([d0, d1], dtype=pl.FP32)``: window memory
    of that many bytes on every rank, zeroed, freed when the orchestrator returns."""
    if isinstance(size, (list, tuple)):
        if not isinstance(dtype, ir.DataType):
            raise DistributedError("pld.alloc_window_buffer([dims], dtype=...) needs the element dtype, e.g. "
                                   "dtype=pl.FP32")
        count = 1
        for d in size:
            count *= int(d)
        size = count * dtype.bits // 8
    elif dtype is not None:
        raise DistributedError(f"pld.alloc_window_buffer({size!r}, dtype=...): a size in bytes takes no dtype; pass "
                               "a shape list with a dtype, or bytes alone")
    return _run().alloc_window_buffer(size)


def _window(buffer: Any, shape: Any, dtype: Any = None) -> Any:
    """``pld.window(buf, [dims], dtype=pl.FP32)``: a typed view (pld.DistributedTensor) of a window buffer."""
    from pypto.runtime import windows
    if not isinstance(buffer, windows.WindowBuffer):
        raise DistributedError(f"pld.window takes a buffer from pld.alloc_window_buffer, got {type(buffer).__name__}")
    if dtype is None:
        raise DistributedError("pld.window(buf, shape, dtype=...) needs the element dtype, e.g. dtype=pl.FP32")
    return buffer.view(shape, dtype)


def _require_window(value: Any, what: str) -> Any:
    from pypto.runtime import windows
    if not isinstance(value, windows.DistributedTensor):
        raise DistributedError(f"{what} takes a window (pld.window(...)), got a {type(value).__name__}; host "
                               "collectives work on window buffers")
    return value


def _require_signal(sig: Any, what: str, shape: str, *windows_used: Any) -> Any:
    """The signal window of a host collective: an INT32 window of its own allocation (spec §7.1)."""
    import torch

    from pypto.runtime import windows
    if sig is None:
        raise DistributedError(f"{what} needs a signal window: sig = pld.window(pld.alloc_window_buffer({shape}, "
                               f"dtype=pl.INT32), {shape}, dtype=pl.INT32) (only pld.tensor.allreduce makes its own)")
    if not isinstance(sig, windows.DistributedTensor) or sig.dtype != torch.int32:
        raise DistributedError(f"{what}: the signal must be an INT32 window {shape} (pld.window(buf, {shape}, "
                               f"dtype=pl.INT32)), got a {type(sig).__name__} of {getattr(sig, 'dtype', None)}")
    for other in windows_used:
        if isinstance(other, windows.DistributedTensor) and other.buffer is sig.buffer:
            raise DistributedError(f"{what}: the signal and the data must be windows of different "
                                   "pld.alloc_window_buffer allocations")
    return sig


def _allreduce(data: Any, sig: Any = None, *, op: Any = 0, mode: str = "mesh", core_num: int = 1) -> Any:
    """``data = pld.tensor.allreduce(data[, sig], op=pld.ReduceOp.Sum, mode="mesh"|"ring")``: in place; every rank
    ends with the reduction over ranks. Without `sig` the call makes one ([world, 1] mesh, [2*(world-1), world]
    ring), freed when the orchestrator returns."""
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.allreduce")
    if mode not in MODES:
        raise DistributedError(f"pld.tensor.allreduce(mode={mode!r}): mode is 'mesh' or 'ring'")
    if int(op) not in range(4):
        raise DistributedError(f"pld.tensor.allreduce(op={op!r}): op is a pld.ReduceOp (Sum, Max, Min, Prod)")
    if isinstance(core_num, bool) or not isinstance(core_num, int) or core_num < 1:
        raise DistributedError(f"pld.tensor.allreduce(core_num={core_num!r}) takes a positive block count")
    run = _run()
    world = run.world_size
    ring = mode == "ring"
    if ring:
        _check_host_ring(data, int(op), core_num)
    shape = (2 * (world - 1), world) if ring else (world, 1)
    if world == 1:
        return data  # nothing to reduce with; a one-rank ring has no rounds
    if sig is None:
        sig = run.signal_window(shape)
    else:
        _require_signal(sig, f"pld.tensor.allreduce(mode={mode!r})", list(shape), data)
    windows.allreduce_window(data, sig, int(op), ring)
    return data


def _check_host_ring(data: Any, op: int, core_num: int) -> None:
    import torch
    world = _run().world_size
    if op != 0 or data.dtype != torch.float32:
        raise DistributedError("pld.tensor.allreduce(mode='ring') on the host reduces FP32 with Sum only; use "
                               "mode='mesh' for other ops and dtypes")
    if data.numel() % world:
        raise DistributedError(f"pld.tensor.allreduce(mode='ring'): {data.numel()} elements do not split into "
                               f"{world} equal segments; pad the window or use mode='mesh'")
    if core_num != 1:
        raise DistributedError(f"pld.tensor.allreduce(mode='ring', core_num={core_num}): the host ring runs on one "
                               "block; core_num applies to mode='mesh'")
    if world > MAX_HOST_RING_RANKS:
        raise DistributedError(f"pld.tensor.allreduce(mode='ring') on the host runs on at most "
                               f"{MAX_HOST_RING_RANKS} ranks, this world has {world}; use mode='mesh'")


def _barrier(sig: Any = None) -> Any:
    """``sig = pld.tensor.barrier(sig)``: every rank arrives before any leaves (one credit barrier on `sig`, an
    INT32 window [world, 1])."""
    from pypto.runtime import windows
    _require_signal(sig, "pld.tensor.barrier", "[world, 1]")
    windows.barrier_window(sig)
    return sig


def _broadcast(data: Any, sig: Any = None, *, root: int = 0) -> Any:
    """``data = pld.tensor.broadcast(data, sig, root=k)``: every rank's window gets rank k's contents."""
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.broadcast")
    world = _run().world_size
    if isinstance(root, bool) or not isinstance(root, int) or not 0 <= root < world:
        raise DistributedError(f"pld.tensor.broadcast(root={root!r}): root is a rank in [0, {world})")
    _require_signal(sig, "pld.tensor.broadcast", "[world, 1]", data)
    windows.broadcast_window(data, sig, root)
    return data


def _allgather(mine: Any, out: Any, sig: Any = None) -> Any:
    """``out = pld.tensor.allgather(mine, out, sig)``: row r of every rank's `out` is rank r's `mine`."""
    from pypto.runtime import windows
    _require_window(out, "pld.tensor.allgather")
    world = _run().world_size
    if out.shape[0] != world or out[0].numel() != mine.numel() or out.dtype != mine.dtype:
        raise DistributedError(f"pld.tensor.allgather: out {list(out.shape)} {out.dtype} must have {world} rows "
                               f"of mine's {mine.numel()} {mine.dtype} elements")
    if _same_memory(mine, out):
        raise DistributedError("pld.tensor.allgather: mine and out must be different windows")
    _require_signal(sig, "pld.tensor.allgather", "[world, 1]", mine, out)
    windows.allgather_window(mine, out, sig)
    return out


def _reduce_scatter(data: Any, sig: Any = None, *, op: Any = 0) -> Any:
    """``data = pld.tensor.reduce_scatter(data, sig, op=pld.ReduceOp.Sum)``: data is [NR, ...]; afterwards row `me`
    of rank me holds the sum over ranks of their row `me` (Sum only; the other rows are unspecified)."""
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.reduce_scatter")
    if int(op) != 0:
        raise DistributedError("pld.tensor.reduce_scatter supports op=pld.ReduceOp.Sum only")
    world = _run().world_size
    if data.shape[0] != world:
        raise DistributedError(f"pld.tensor.reduce_scatter: data {list(data.shape)} needs {world} rows, one per rank")
    _require_signal(sig, "pld.tensor.reduce_scatter", "[world, 1]", data)
    windows.reduce_scatter_window(data, sig, 0)
    return data


def _all_to_all(stage: Any, out: Any, sig: Any = None) -> Any:
    """``out = pld.tensor.all_to_all(stage, out, sig)``: stage[d] of rank s becomes out[s] of rank d."""
    from pypto.runtime import windows
    _require_window(out, "pld.tensor.all_to_all")
    world = _run().world_size
    if stage.shape != out.shape or stage.shape[0] != world or stage.dtype != out.dtype:
        raise DistributedError(f"pld.tensor.all_to_all: stage {list(stage.shape)} {stage.dtype} and out "
                               f"{list(out.shape)} {out.dtype} must have one dtype and {world} rows, one per rank")
    if _same_memory(stage, out):
        raise DistributedError("pld.tensor.all_to_all: stage and out must be different windows")
    _require_signal(sig, "pld.tensor.all_to_all", "[world, 1]", stage, out)
    windows.all_to_all_window(stage, out, sig)
    return out


def _same_memory(a: Any, b: Any) -> bool:
    from pypto.runtime import windows
    if isinstance(a, windows.DistributedTensor) and isinstance(b, windows.DistributedTensor):
        return a.buffer is b.buffer
    return a.data_ptr() == b.data_ptr()


class Collective(OpFunction):
    """A collective: run by the host orchestrator as it runs (a host builtin), or parsed in a kernel into the
    op of the same name (the InCore composite form)."""

    def __init__(self, opdef: Any, host_fn: Any) -> None:
        super().__init__(opdef)
        self.host_fn = host_fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if current_host_run() is None:
            return super().__call__(*args, **kwargs)
        return self.host_fn(*args, **kwargs)


world_size = HostOnly("world_size", _world_size, "kernels get the rank count from pld.nranks(pld.get_comm_ctx(dt))")
alloc_window_buffer = HostOnly("alloc_window_buffer", _alloc_window_buffer,
                               "allocate window buffers in the @pl.jit.host orchestrator and pass views in")
window = HostOnly("window", _window, "make views in the @pl.jit.host orchestrator and pass them in")
COLLECTIVES = {name: Collective(ops.get(f"tensor.{name}"), fn) for name, fn in {
    "allreduce": _allreduce, "barrier": _barrier, "broadcast": _broadcast, "allgather": _allgather,
    "reduce_scatter": _reduce_scatter, "all_to_all": _all_to_all}.items()}
