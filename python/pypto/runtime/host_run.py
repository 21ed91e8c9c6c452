"""The run of a compiled ``@pl.jit.host`` orchestrator on this rank: what its generated code calls.

The pld_host backend turns a host orchestrator's lowered IR into a Python function of ``(rt, *params)``; ``rt``
is a :class:`HostRun`. Every rank runs the same function (SPMD): it opens the comm domains the compiler found,
allocates the window buffers of the domains this rank is in (collectively, zeroed), and executes only the
dispatches whose device is this rank, including the per-device parts of the host collectives. When the function
returns, every host tensor a dispatch wrote (``pl.Out``/``pl.InOut``) is sent from the rank that wrote it to all
ranks, so each rank ends with the whole result, and the call's window buffers are freed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pypto import _core, ir
from pypto.runtime.distributed import DistributedError

MODES = ("mesh", "ring")
MAX_HOST_RING_RANKS = 16  # spec §7.2: the host ring runs on at most 16 ranks


@dataclass(frozen=True)
class CommDomain:
    """Ranks sharing window buffers: ``members`` are world ranks in domain-rank order."""

    name: str
    members: tuple[int, ...]
    rank: int | None  # this process's position in members; None when it is not one of them

    @property
    def size(self) -> int:
        return len(self.members)


@dataclass
class _Published:
    """A host tensor a dispatch wrote on `root`; every rank gets it when the orchestrator returns."""

    tensor: Any  # a torch tensor
    root: int


@dataclass
class HostRun:
    """One call of a compiled ``@pl.jit.host`` orchestrator on this rank."""

    name: str
    programs: dict[str, Any]  # the chip programs it dispatches, by name (JITFunctions)
    chip_config: Any  # the RunConfig its dispatches run with
    rank: int
    world: int
    buffers: list[Any] = field(default_factory=list)  # WindowBuffers, in allocation order
    published: list[_Published] = field(default_factory=list)

    # ------------------------------------------------------------------ what generated code calls

    def world_size(self) -> int:
        return self.world

    def comm_domain(self, name: str, devices: Sequence[int] | None) -> CommDomain:
        """The domain `name`: every rank when `devices` is None, else those devices (the compiler's constants)."""
        if devices is None:
            members = tuple(range(self.world))
        else:
            members = tuple(sorted(set(devices)))
            outside = [d for d in members if d >= self.world]
            if outside:
                raise DistributedError(
                    f"{self.name}: comm domain {name} dispatches to device {outside[0]} but the program runs on "
                    f"{self.world} ranks; run it on more ranks or dispatch to devices below {self.world}")
        return CommDomain(name, members, members.index(self.rank) if self.rank in members else None)

    def alloc_window_buffer(self, domain: CommDomain, name: str, nbytes: Any) -> Any:
        """Window memory of `nbytes` on each rank of `domain`; None on the ranks outside it."""
        from pypto.runtime import windows
        if isinstance(nbytes, bool) or not isinstance(nbytes, int) or nbytes <= 0:
            raise DistributedError(f"{self.name}: {name} = pld.alloc_window_buffer({nbytes!r}): the size is a positive "
                                   "number of bytes")
        if domain.rank is None:
            return None
        buffer = windows.allocate(nbytes, members=list(domain.members))
        self.buffers.append(buffer)
        return buffer

    def window(self, buffer: Any, shape: Sequence[int], dtype: str) -> Any:
        if buffer is None:
            return None
        return buffer.view([int(d) for d in shape], getattr(ir.DataType, dtype))

    def rank_slice(self, tensor: Any, rank: int) -> Any:
        """``x[r]``: rank r's slice of a host tensor [NR, ...]."""
        if not 0 <= rank < tensor.shape[0]:
            raise DistributedError(f"{self.name}: x[{rank}] of a host tensor of shape {list(tensor.shape)}: a host "
                                   f"tensor carries one leading row per rank ([{self.world}, ...] on {self.world} ranks)")
        return tensor[rank]

    def host_slice(self, tensor: Any, shape: Sequence[int], offsets: Sequence[int]) -> Any:
        """``x[a:b, ...]``: a view of that region of a host tensor."""
        region = tuple(slice(int(o), int(o) + int(n)) for o, n in zip(offsets, shape))
        if any(o < 0 or o + n > d for o, n, d in zip(offsets, shape, tensor.shape)):
            raise DistributedError(f"{self.name}: the region {[f'{o}:{o + n}' for o, n in zip(offsets, shape)]} lies "
                                   f"outside the host tensor of shape {list(tensor.shape)}")
        return tensor[region]

    def dispatch(self, program: str, device: int, args: Sequence[Any], at: tuple[str, int, int, int, int] | None = None
                 ) -> None:
        """``program(*args, device=d)``: runs on rank d only; the host tensors it writes are published. `at` is the
        dispatch's place in the user's source (file, line, end line, column, end column; 0-based columns), where
        errors of the call point."""
        chip = self.programs[program]
        self._check_device(f"{program}(..., device={device})", device)
        self._publish_outputs(chip, args, device)
        if device == self.rank:
            from pypto.jit.errors import CallSite
            site = CallSite(at[0], at[1], at[1:]) if at is not None else None
            chip.call_local(tuple(args), {}, self.chip_config, site)

    def builtin(self, collective: str, device: int, args: Sequence[Any], options: dict[str, Any]) -> None:
        """Device `device`'s part of a host collective (LowerHostTensorCollectives made one per device)."""
        self._check_device(f"pld.{collective}(...)", device)
        if device != self.rank:
            return
        BUILTINS[collective](self, *args, **options)

    # ------------------------------------------------------------------ the end of the call

    def finish(self) -> None:
        """Every rank gets the host tensors each dispatch wrote; then the window buffers are freed."""
        from pypto.runtime import windows
        for item in self.published:
            windows.broadcast(item.tensor, item.root)
        self.free()

    def free(self) -> None:
        for buffer in reversed(self.buffers):
            _core.comm_free_window(buffer.window_id)
        self.buffers.clear()

    def _check_device(self, what: str, device: Any) -> None:
        if isinstance(device, bool) or not isinstance(device, int) or not 0 <= device < self.world:
            raise DistributedError(f"{self.name}: {what}: the device is a rank in [0, {self.world}); loop "
                                   "`for r in pl.range(pld.world_size())`")

    def _publish_outputs(self, program: Any, args: Sequence[Any], device: int) -> None:
        from pypto.runtime import windows
        values = dict(zip(program.param_names, args))
        for spec in program.param_specs():
            value = values.get(spec.name)
            # An unannotated parameter may be written: published too (inputs are equal on every rank anyway).
            written = spec.direction in ("Out", "InOut") or spec.kind == "unannotated"
            if written and windows.is_host_tensor(value):
                self.published.append(_Published(value, device))


# ---------------------------------------------------------------------------- the host builtins
# Each runs on one member rank of the windows' domain; the window's engine collective involves every member.

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
    if not isinstance(sig, windows.DistributedTensor) or sig.dtype != torch.int32:
        raise DistributedError(f"{what}: the signal must be an INT32 window {shape} (pld.window(buf, {shape}, "
                               f"dtype=pl.INT32)), got a {type(sig).__name__} of {getattr(sig, 'dtype', None)}")
    for other in windows_used:
        if isinstance(other, windows.DistributedTensor) and other.buffer is sig.buffer:
            raise DistributedError(f"{what}: the signal and the data must be windows of different "
                                   "pld.alloc_window_buffer allocations")
    return sig


def _domain_size(window: Any) -> int:
    return len(window.buffer.members)


def _allreduce(run: HostRun, data: Any, sig: Any, *, op: int = 0, mode: str = "mesh", core_num: int = 1) -> None:
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.allreduce")
    if mode not in MODES:
        raise DistributedError(f"pld.tensor.allreduce(mode={mode!r}): mode is 'mesh' or 'ring'")
    ring = mode == "ring"
    world = _domain_size(data)
    if ring:
        _check_host_ring(data, world)
    if world == 1:
        return  # nothing to reduce with; a one-rank ring has no rounds
    _require_signal(sig, f"pld.tensor.allreduce(mode={mode!r})",
                    f"[{2 * (world - 1)}, {world}]" if ring else f"[{world}, 1]", data)
    windows.allreduce_window(data, sig, op, ring)


def _check_host_ring(data: Any, world: int) -> None:
    """What depends on the rank count; LowerHostTensorCollectives checks the op, dtype and core_num."""
    if data.numel() % world:
        raise DistributedError(f"pld.tensor.allreduce(mode='ring'): {data.numel()} elements do not split into "
                               f"{world} equal segments; pad the window or use mode='mesh'")
    if world > MAX_HOST_RING_RANKS:
        raise DistributedError(f"pld.tensor.allreduce(mode='ring') on the host runs on at most "
                               f"{MAX_HOST_RING_RANKS} ranks, this domain has {world}; use mode='mesh'")


def _barrier(run: HostRun, sig: Any) -> None:
    from pypto.runtime import windows
    _require_signal(sig, "pld.tensor.barrier", "[NR, 1]")
    windows.barrier_window(sig)


def _broadcast(run: HostRun, data: Any, sig: Any, *, root: int = 0) -> None:
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.broadcast")
    world = _domain_size(data)
    if not 0 <= root < world:
        raise DistributedError(f"pld.tensor.broadcast(root={root}): root is a rank of the window's comm domain, in "
                               f"[0, {world})")
    _require_signal(sig, "pld.tensor.broadcast", "[NR, 1]", data)
    windows.broadcast_window(data, sig, root)


def _allgather(run: HostRun, mine: Any, out: Any, sig: Any) -> None:
    from pypto.runtime import windows
    _require_window(out, "pld.tensor.allgather")
    world = _domain_size(out)
    if out.shape[0] != world or out[0].numel() != mine.numel() or out.dtype != mine.dtype:
        raise DistributedError(f"pld.tensor.allgather: out {list(out.shape)} {out.dtype} must have {world} rows "
                               f"of mine's {mine.numel()} {mine.dtype} elements")
    if _same_memory(mine, out):
        raise DistributedError("pld.tensor.allgather: mine and out must be different windows")
    _require_signal(sig, "pld.tensor.allgather", "[NR, 1]", mine, out)
    windows.allgather_window(mine, out, sig)


def _reduce_scatter(run: HostRun, data: Any, sig: Any, *, op: int = 0) -> None:
    from pypto.runtime import windows
    _require_window(data, "pld.tensor.reduce_scatter")
    world = _domain_size(data)
    if data.shape[0] != world:
        raise DistributedError(f"pld.tensor.reduce_scatter: data {list(data.shape)} needs {world} rows, one per rank")
    _require_signal(sig, "pld.tensor.reduce_scatter", "[NR, 1]", data)
    windows.reduce_scatter_window(data, sig, op)


def _all_to_all(run: HostRun, stage: Any, out: Any, sig: Any) -> None:
    from pypto.runtime import windows
    _require_window(out, "pld.tensor.all_to_all")
    world = _domain_size(out)
    if stage.shape != out.shape or stage.shape[0] != world or stage.dtype != out.dtype:
        raise DistributedError(f"pld.tensor.all_to_all: stage {list(stage.shape)} {stage.dtype} and out "
                               f"{list(out.shape)} {out.dtype} must have one dtype and {world} rows, one per rank")
    if _same_memory(stage, out):
        raise DistributedError("pld.tensor.all_to_all: stage and out must be different windows")
    _require_signal(sig, "pld.tensor.all_to_all", "[NR, 1]", stage, out)
    windows.all_to_all_window(stage, out, sig)


def _all_to_all_v(run: HostRun, input: Any, target: Any, sig: Any, send_counts: Any, recv_counts: Any) -> None:
    import torch

    from pypto.runtime import windows
    _require_window(target, "pld.tensor.all_to_all_v")
    _require_window(recv_counts, "pld.tensor.all_to_all_v (recv_counts)")
    world = _domain_size(target)
    if input.shape != target.shape or input.dim() != 2 or target.shape[0] % world or input.dtype != target.dtype:
        raise DistributedError(f"pld.tensor.all_to_all_v: input {list(input.shape)} {input.dtype} and target "
                               f"{list(target.shape)} {target.dtype} must have one dtype and one 2-D shape "
                               f"[NR*MAX_RECV, SIZE] with NR = {world}")
    for name, counts in (("send_counts", send_counts), ("recv_counts", recv_counts)):
        if counts.dtype != torch.int32 or counts.numel() != world or counts.shape[0] != world:
            raise DistributedError(f"pld.tensor.all_to_all_v: {name} must be INT32 [{world}] or [{world}, 1], got "
                                   f"{list(counts.shape)} {counts.dtype}")
    operands = {"input": input, "target": target, "send_counts": send_counts, "recv_counts": recv_counts}
    names = list(operands)
    for i, a in enumerate(names):
        for b in names[:i]:
            if _same_memory(operands[a], operands[b]):
                raise DistributedError(f"pld.tensor.all_to_all_v: {b} and {a} must be different windows")
    _require_signal(sig, "pld.tensor.all_to_all_v", "[NR, 1]", *operands.values())
    windows.all_to_all_v_window(input, target, sig, send_counts, recv_counts)


def _same_memory(a: Any, b: Any) -> bool:
    from pypto.runtime import windows
    if isinstance(a, windows.DistributedTensor) and isinstance(b, windows.DistributedTensor):
        return a.buffer is b.buffer
    return a.data_ptr() == b.data_ptr()


BUILTINS = {"tensor.allreduce": _allreduce, "tensor.barrier": _barrier, "tensor.broadcast": _broadcast,
            "tensor.allgather": _allgather, "tensor.reduce_scatter": _reduce_scatter,
            "tensor.all_to_all": _all_to_all, "tensor.all_to_all_v": _all_to_all_v}
