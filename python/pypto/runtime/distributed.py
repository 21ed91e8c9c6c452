"""Distributed execution: this process's rank, window buffers, and the run of a ``@pl.jit.host`` orchestrator.

Ranks are OS processes (see :mod:`pypto.runtime.launch`) joined by a communication engine, a plugin of
kind ``comm`` (by default ``mpi``: MPI-3 RMA windows on Open MPI). A host orchestrator runs SPMD: every
rank runs the same host program, allocates the same window buffers (collectively, zeroed), and executes
only the chip-program dispatches whose ``device=`` is its own rank. When the orchestrator returns, every
host tensor a dispatch wrote (``pl.Out``/``pl.InOut``) is sent from the rank that wrote it to all ranks,
so each rank ends with the whole result, and the call's window buffers are freed (pypto.runtime.host_run).
"""

from __future__ import annotations

import atexit
import contextvars
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
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

_current: contextvars.ContextVar[str | None] = contextvars.ContextVar("pypto_host_run", default=None)


def run_host(name: str, run: Callable[[int, int], Any], config: DistributedConfig) -> Any:
    """Runs a compiled host orchestrator on this rank (starting the ranks first if needed): ``run(rank, world)``."""
    if _current.get() is not None:
        raise DistributedError(f"{name}: a @pl.jit.host orchestrator cannot call another one ({_current.get()} is "
                               "running); call its chip programs directly")
    start(config)
    token = _current.set(name)
    try:
        return run(_core.comm_rank(), _core.comm_world_size())
    finally:
        _current.reset(token)
