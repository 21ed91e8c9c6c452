"""Distributed execution: this process's rank, window buffers, and the run of a ``@pl.jit.host`` orchestrator.

Ranks are OS processes (see :mod:`pypto.runtime.launch`) joined by a communication engine, a plugin of
kind ``comm`` (by default ``mpi``: MPI-3 RMA windows on Open MPI). A host orchestrator runs SPMD: every
rank runs the same host program, allocates the same window buffers (collectively, zeroed), and executes
only the chip-program dispatches whose ``device=`` is its own rank. When the orchestrator returns, every
host tensor a dispatch wrote (``pl.Out``/``pl.InOut``) is sent from the rank that wrote it to all ranks,
so each rank ends with the whole result, and the call's window buffers are freed.
"""

from __future__ import annotations

import atexit
import contextvars
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pypto
from pypto import _core
from pypto.runtime import launch




class DistributedError(pypto.Error):
    """A distributed program was used wrongly: the message names the call and says what to do."""


@dataclass(frozen=True)
class DistributedConfig:
    """How many ranks a distributed program runs on, and how they talk.

    ``device_ids``: the device of each rank (rank r runs on ``device_ids[r]``); ``world_size``: the rank
    count when no device list is given. Either one says how many ranks a script started plainly
    (``python3 script.py``) starts; under ``pypto launch -n P`` or ``mpirun -np P`` the launcher decides.
    ``hostfile``: the Open MPI hostfile a plain start passes to mpirun. ``wait_timeout_s``: how long a
    ``pld.system.wait`` may wait before the program fails (default 60 s, or ``PYPTO_COMM_TIMEOUT_S``).
    ``engine``: the comm plugin (``pypto plugins`` lists them).
    """

    device_ids: tuple[int, ...] | None = None
    world_size: int | None = None
    hostfile: str | None = None
    wait_timeout_s: float | None = None
    engine: str = "mpi"

    def __post_init__(self) -> None:
        if self.device_ids is not None:
            ids = tuple(self.device_ids)
            if not ids or not all(isinstance(d, int) and d >= 0 for d in ids) or len(set(ids)) != len(ids):
                raise ValueError(f"DistributedConfig(device_ids=...) takes distinct non-negative device ids, "
                                 f"got {self.device_ids!r}")
            object.__setattr__(self, "device_ids", ids)
            if self.world_size is not None and self.world_size != len(ids):
                raise ValueError(f"DistributedConfig: world_size={self.world_size} but {len(ids)} device_ids; "
                                 "give one of them")
        if self.world_size is not None and (not isinstance(self.world_size, int) or self.world_size < 1):
            raise ValueError(f"DistributedConfig(world_size=...) takes a positive rank count, got {self.world_size!r}")
        if self.wait_timeout_s is not None and not self.wait_timeout_s > 0:
            raise ValueError(f"DistributedConfig(wait_timeout_s=...) takes a positive number of seconds, got "
                             f"{self.wait_timeout_s!r}")

    @property
    def ranks_to_start(self) -> int:
        if self.device_ids is not None:
            return len(self.device_ids)
        return self.world_size or launch.DEFAULT_WORLD_SIZE


# ---------------------------------------------------------------------------- the engine of this process

def running() -> bool:
    return _core.comm_running()


def rank() -> int:
    """This process's rank (0 when no engine runs)."""
    return _core.comm_rank() if running() else 0


def world_size() -> int:
    """The number of ranks (1 when no engine runs)."""
    return _core.comm_world_size() if running() else 1


def start(config: DistributedConfig | None = None) -> None:
    """Joins this process to the job's ranks, starting them first when no launcher did (this does not return
    then: the process becomes ``mpirun``). Idempotent."""
    config = config or DistributedConfig()
    if running():
        return
    if launch.launched_size() is None:
        launch.relaunch(config.ranks_to_start, config.hostfile)
    _core.comm_start(config.engine)
    # Without one in the config, the engine's own default applies (PYPTO_COMM_TIMEOUT_S, else 60 s).
    if config.wait_timeout_s is not None:
        _core.comm_set_wait_timeout(config.wait_timeout_s)
    launch.keep_rank_output(_core.comm_rank())
    _install_failure_handling()


def _install_failure_handling() -> None:
    """A rank that fails takes the job down with its error instead of leaving the others waiting for it."""
    previous = sys.excepthook

    def fail_job(kind, value, tb) -> None:
        me = _core.comm_rank()
        sys.stderr.write(f"pypto: rank {me} of {_core.comm_world_size()} failed:\n")
        sys.stderr.write("".join(traceback.format_exception(kind, value, tb)))
        sys.stderr.flush()
        # After a wait timed out, the other ranks notice the alarm within milliseconds and report their
        # own signal state; give them that time before the job is torn down.
        if _core.comm_alarm_raised_by() is not None:
            import time
            time.sleep(1.0)
        _core.comm_abort(1, f"rank {me} raised {kind.__name__}")
        previous(kind, value, tb)

    sys.excepthook = fail_job
    atexit.register(_finalize)


def _finalize() -> None:
    if running():
        _core.comm_finalize()


# ---------------------------------------------------------------------------- the host orchestrator run

@dataclass
class _Published:
    """A host tensor a dispatch wrote on `root`; every rank gets it when the orchestrator returns."""

    tensor: Any  # a torch tensor
    root: int


@dataclass
class HostRun:
    """One call of a ``@pl.jit.host`` orchestrator on this rank."""

    name: str
    chip_config: Any  # the RunConfig its dispatches run with
    rank: int
    world_size: int
    buffers: list[Any] = field(default_factory=list)  # WindowBuffers
    published: list[_Published] = field(default_factory=list)
    signals: dict[tuple[int, ...], Any] = field(default_factory=dict)  # synthesized signal windows by shape

    def alloc_window_buffer(self, nbytes: int) -> Any:
        from pypto.runtime import windows
        buffer = windows.allocate(nbytes)
        self.buffers.append(buffer)
        return buffer

    def signal_window(self, shape: Sequence[int]) -> Any:
        """A zeroed INT32 signal window of `shape` for a host collective called without one (allreduce, spec
        §7.2), allocated collectively (every rank runs the same orchestrator, so every rank asks for the same
        shapes in the same order) and freed with the call's buffers. One per shape serves every such collective
        of the call: the credit barriers leave it zero."""
        import torch
        key = tuple(int(d) for d in shape)
        if key not in self.signals:
            count = 1
            for d in key:
                count *= d
            self.signals[key] = self.alloc_window_buffer(4 * count).view(key, torch.int32)
        return self.signals[key]

    def dispatch(self, program: Any, args: tuple[Any, ...], kwargs: dict[str, Any], device: Any) -> Any:
        """``program(*args, device=r)``: runs on rank r only; the host tensors it writes are published."""
        if isinstance(device, bool) or not isinstance(device, int) or not 0 <= device < self.world_size:
            raise DistributedError(f"{program.__name__}(..., device={device!r}): device is a rank in "
                                   f"[0, {self.world_size}); loop `for r in pl.range(pld.world_size())`")
        if program.kind != "orchestration":
            raise DistributedError(
                f"{program.__name__} is a @pl.jit.{program.kind} kernel; a host orchestrator dispatches @pl.jit "
                f"programs with device=, and they call the kernels: wrap {program.__name__} in a @pl.jit function")
        self._publish_outputs(program, args, kwargs, device)
        if device != self.rank:
            return None
        return program.call_local(args, kwargs, self.chip_config)

    def _publish_outputs(self, program: Any, args: tuple[Any, ...], kwargs: dict[str, Any], device: int) -> None:
        from pypto.runtime import windows
        values = dict(zip(program.param_names, args)) | kwargs
        for spec in program.param_specs():
            value = values.get(spec.name)
            # An unannotated parameter may be written: published too (inputs are equal on every rank anyway).
            written = spec.direction in ("Out", "InOut") or spec.kind == "unannotated"
            if written and windows.is_host_tensor(value):
                self.published.append(_Published(value, device))

    def finish(self) -> None:
        """Every rank gets the host tensors each dispatch wrote; then the window buffers are freed."""
        from pypto.runtime import windows
        for item in self.published:
            windows.broadcast(item.tensor, item.root)
        self.signals.clear()
        for buffer in reversed(self.buffers):
            _core.comm_free_window(buffer.window_id)
        self.buffers.clear()


_current: contextvars.ContextVar[HostRun | None] = contextvars.ContextVar("pypto_host_run", default=None)


def current_host_run() -> HostRun | None:
    """The host orchestrator running now, or None outside one."""
    return _current.get()


def run_host(name: str, body: Callable[[], Any], chip_config: Any, config: DistributedConfig) -> Any:
    """Runs a host orchestrator's body on this rank (starting the ranks first if needed)."""
    if current_host_run() is not None:
        raise DistributedError(f"{name}: a @pl.jit.host orchestrator cannot call another one; call its chip "
                               "programs directly")
    start(config)
    run = HostRun(name, chip_config, _core.comm_rank(), _core.comm_world_size())
    token = _current.set(run)
    try:
        result = body()
        run.finish()
        return result
    finally:
        _current.reset(token)
