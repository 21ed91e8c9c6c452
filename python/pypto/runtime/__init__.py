"""Running compiled PyPTO programs: the run configuration.

``RunConfig`` carries every compile and run option of a kernel call
(``kernel(*args, config=RunConfig(...))``). Compiled programs
(``CompiledProgram``) come from :mod:`pypto.jit`. ``Tensor`` wraps torch and
numpy memory without copying (DLPack or the buffer protocol).
"""

from pypto._core.runtime import Tensor
from pypto.runtime.config import PLATFORMS, BackendType, MemoryPlanner, OptimizationStrategy, RunConfig

__all__ = ["PLATFORMS", "BackendType", "MemoryPlanner", "OptimizationStrategy", "RunConfig", "Tensor"]
