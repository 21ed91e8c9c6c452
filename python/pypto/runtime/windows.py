"""Window buffers as torch tensors, and the host-side collectives on them (needs torch; imported when a
distributed program runs)."""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from typing import Any

import torch

from pypto import _core, ir
from pypto.jit import arrays
from pypto.runtime.distributed import DistributedError

WINDOW_ALIGNMENT = 32  # bytes; each window buffer's size rounds up to it

# PyPTO dtype -> torch dtype, from the JIT's table of the dtypes this torch has.
_TORCH_DTYPES = {dtype: getattr(torch, name) for name, dtype in arrays.TORCH_DTYPES.items() if hasattr(torch, name)}


class WindowBuffer:
    """``pld.alloc_window_buffer(nbytes)``: symmetric memory, the same size on every rank of its comm domain,
    zeroed, which peers read and write with one-sided transfers and signals. Typed views of it are
    ``pld.window(...)``.

    ``members``: the world ranks of the comm domain, ascending; ``domain_rank``: this rank's position among them,
    the rank peers name it by (only members allocate the buffer, so the rank holding one is always among them)."""

    def __init__(self, window_id: int, address: int, nbytes: int, requested: int, members: tuple[int, ...],
                 domain_rank: int) -> None:
        self.window_id = window_id
        self.address = address
        self.nbytes = nbytes
        self.requested = requested
        self.members = members
        self.domain_rank = domain_rank
        self._bytes = torch.frombuffer((ctypes.c_uint8 * nbytes).from_address(address), dtype=torch.uint8)

    def __repr__(self) -> str:
        return f"<WindowBuffer {self.window_id}: {self.requested} bytes, ranks {list(self.members)}>"

    def view(self, shape: Sequence[int], dtype: Any, byte_offset: int = 0) -> DistributedTensor:
        torch_dtype = torch_dtype_of(dtype)
        shape = [int(d) for d in shape]
        size = math.prod(shape) * torch_dtype.itemsize
        if byte_offset < 0 or byte_offset + size > self.nbytes:
            raise DistributedError(
                f"pld.window({shape}, {ir_dtype_of(torch_dtype).name}) needs {size} bytes at offset {byte_offset} "
                f"but the window buffer holds {self.requested}: allocate pld.alloc_window_buffer({byte_offset + size}) "
                "(sizes are in bytes, not elements)")
        data = self._bytes[byte_offset:byte_offset + size].view(torch_dtype).view(shape)
        return DistributedTensor(data, self)


class DistributedTensor(torch.Tensor):
    """``pld.window(buf, shape, dtype=...)``: a typed view of a window buffer (this rank's slice of it), the only
    kind of tensor peers can reach. Passed to a chip program it has the IR type ``pld.DistributedTensor``.
    Torch operations on it return plain tensors."""

    buffer: WindowBuffer

    @staticmethod
    def __new__(cls, data: torch.Tensor, buffer: WindowBuffer) -> DistributedTensor:
        tensor = torch.Tensor._make_subclass(cls, data)
        tensor.buffer = buffer
        return tensor

    __torch_function__ = torch._C._disabled_torch_function_impl

    def __class_getitem__(cls, item: Any):
        from pypto.language._types import distributed_tensor_spec
        return distributed_tensor_spec(item)


def torch_dtype_of(dtype: Any) -> torch.dtype:
    if isinstance(dtype, torch.dtype):
        return dtype
    if isinstance(dtype, ir.DataType) and dtype in _TORCH_DTYPES:
        return _TORCH_DTYPES[dtype]
    names = ", ".join(d.name for d in _TORCH_DTYPES)
    raise DistributedError(f"a window holds elements of a PyPTO dtype torch has ({names}), got {dtype!r}")


def ir_dtype_of(dtype: torch.dtype) -> ir.DataType:
    return arrays.TORCH_DTYPES[str(dtype).removeprefix("torch.")]


def round_window_bytes(nbytes: int) -> int:
    return (nbytes + WINDOW_ALIGNMENT - 1) // WINDOW_ALIGNMENT * WINDOW_ALIGNMENT


def allocate(nbytes: int, members: Sequence[int] | None = None) -> WindowBuffer:
    """Collective over ``members`` (world ranks; None: the world), which only they call: a window buffer of the
    comm domain of those ranks. Inside the domain ranks are dense: rank ``members[i]`` is domain rank i, and the
    peers of transfers, signals and collectives on its views are domain ranks."""
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0:
        raise DistributedError(f"pld.alloc_window_buffer takes a positive size in bytes, got {nbytes!r}")
    ranks = [] if members is None else list(members)
    if members is not None and (not ranks or not all(isinstance(r, int) and not isinstance(r, bool) for r in ranks)
                                or sorted(set(ranks)) != ranks):
        raise DistributedError(f"a comm domain's members are distinct world ranks (ints) in ascending order, got "
                               f"{ranks!r}; sort them, or pass members=None for the world")
    size = round_window_bytes(nbytes)
    window_id, address = _core.comm_alloc_window(size, ranks)
    domain_members, domain_rank = _core.comm_window_domain(window_id)
    return WindowBuffer(window_id, address, size, nbytes, tuple(domain_members), domain_rank)


def is_host_tensor(value: Any) -> bool:
    """A torch tensor of the host program (not a window view, which stays on its rank)."""
    return isinstance(value, torch.Tensor) and not isinstance(value, DistributedTensor)


def broadcast(tensor: torch.Tensor, root: int) -> None:
    if tensor.is_contiguous():
        _core.comm_broadcast(tensor.data_ptr(), tensor.numel() * tensor.element_size(), root)
        return
    staged = tensor.contiguous()
    _core.comm_broadcast(staged.data_ptr(), staged.numel() * staged.element_size(), root)
    tensor.copy_(staged)


# The pld.tensor.* host builtins: the credit-barrier collectives of core/src/comm/c_api_collectives.cpp, the code the
# kernels' composites run, on window tensors and an INT32 signal window (all zero before and after each call).

# Each runs in the comm domain of its windows (all of one domain): NR below is the domain's rank count, ranks and
# roots are domain ranks, and only the domain's members call it.

def allreduce_window(data: DistributedTensor, signal: DistributedTensor, op: int, ring: bool = False) -> None:
    """In place; mesh: signal [NR, 1], ring: signal [2*(NR-1), NR]."""
    _core.comm_window_allreduce(data, signal, op, ring)


def barrier_window(signal: DistributedTensor) -> None:
    _core.comm_window_barrier(signal)


def broadcast_window(data: DistributedTensor, signal: DistributedTensor, root: int) -> None:
    """Every member's ``data`` becomes domain rank ``root``'s."""
    _core.comm_window_broadcast(data, signal, root)


def allgather_window(mine: torch.Tensor, out: DistributedTensor, signal: DistributedTensor) -> None:
    """out[r] = domain rank r's `mine` on every member (out has NR rows of mine's size)."""
    _core.comm_window_allgather(mine.contiguous(), out, signal)


def reduce_scatter_window(data: DistributedTensor, signal: DistributedTensor, op: int) -> None:
    _core.comm_window_reduce_scatter(data, signal, op)


def all_to_all_window(stage: torch.Tensor, out: DistributedTensor, signal: DistributedTensor) -> None:
    _core.comm_window_all_to_all(stage.contiguous(), out, signal)


def all_to_all_v_window(input: torch.Tensor, target: DistributedTensor, signal: DistributedTensor,
                        send_counts: torch.Tensor, recv_counts: DistributedTensor) -> None:
    """``input`` and ``target`` are [NR*MAX_RECV, SIZE]: block d of this rank's input (MAX_RECV rows) goes whole to
    block ``me`` of rank d's target, and min(send_counts[d], MAX_RECV) into rank d's ``recv_counts[me]``
    (``send_counts`` INT32 [NR] or [NR, 1]; ``recv_counts`` an INT32 window [NR, 1]). Read only the first
    ``recv_counts[s]`` rows of block s: the rest of it is whatever the sender's block held."""
    _core.comm_window_all_to_all_v(input.contiguous(), target, signal, send_counts.contiguous(), recv_counts)


# The transport's own collectives (MPI_Allreduce, MPI_Barrier): for what has no window or signal, and as the
# reference the allreduce benchmark compares against.

def engine_allreduce(tensor: torch.Tensor, op: int) -> None:
    """In place with the transport's allreduce (MPI_Allreduce); `tensor` must be contiguous."""
    if not tensor.is_contiguous():
        raise DistributedError("engine_allreduce: the tensor must be contiguous")
    _core.comm_allreduce(tensor.data_ptr(), tensor.numel(), int(ir_dtype_of(tensor.dtype).code), op)


def barrier() -> None:
    _core.comm_barrier()
