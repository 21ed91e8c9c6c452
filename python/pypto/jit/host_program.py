"""A compiled ``@pl.jit.host`` orchestrator: its lowered IR and the Python the pld_host backend made of it.

Compiling one (``pypto.jit.function.JITFunction`` does it on the first call of each specialization) parses the
orchestrator into IR, runs the ``host`` pipeline (SynthesizeAllReduceSignals, MaterializeCommDomainScopes,
LowerHostTensorCollectives) and generates ``orchestration/<name>.py``: a function of ``(rt, *params)``. Calling the
HostProgram starts the ranks if needed and runs that function on every rank (see pypto.runtime.host_run).
"""

from __future__ import annotations

import dataclasses
import linecache
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pypto import ir
from pypto.runtime import distributed
from pypto.runtime.host_run import HostRun

HOST_PIPELINE = "host"
HOST_BACKEND = "pld_host"


@dataclass
class HostProgram:
    """``name``: the orchestrator; ``program``: its lowered IR; ``source``: the generated Python;
    ``param_names``: its parameters in order; ``programs``: the chip programs it dispatches, by name."""

    name: str
    program: ir.Program
    source: str
    param_names: tuple[str, ...]
    programs: dict[str, Any]
    config: Any  # the RunConfig it was compiled for
    function: Callable[..., Any]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Runs the orchestrator on these host tensors on every rank; each rank returns the whole result."""
        values = dict(zip(self.param_names, args)) | kwargs
        missing = [name for name in self.param_names if name not in values]
        if len(args) > len(self.param_names) or missing or set(values) - set(self.param_names):
            raise TypeError(f"{self.name}({', '.join(self.param_names)}) got {len(args)} positional argument(s) "
                            f"and keywords {sorted(kwargs)}")
        ordered = [values[name] for name in self.param_names]
        dist = self.config.distributed_config or distributed.DistributedConfig()
        chip_config = dataclasses.replace(self.config, distributed_config=None)
        return distributed.run_host(self.name, lambda rank, world: self.run(rank, world, ordered, chip_config), dist)

    def run(self, rank: int, world: int, args: list[Any], chip_config: Any) -> Any:
        run = HostRun(self.name, self.programs, chip_config, rank, world)
        result = self.function(run, *args)
        run.finish()
        return result


def load_source(name: str, source: str) -> Callable[..., Any]:
    """The function `name` the generated source defines; tracebacks through it show its lines."""
    filename = f"<pypto orchestration/{name}.py>"
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    namespace: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own backend's output
    return namespace[name]
