"""Running compiled PyPTO programs: the run configuration.

``RunConfig`` carries every compile and run option of a kernel call
(``kernel(*args, config=RunConfig(...))``). Compiled programs
(``CompiledProgram``) come from :mod:`pypto.jit`. ``Tensor`` wraps torch and
numpy memory without copying (DLPack or the buffer protocol). ``ChipWorker``
runs compiled programs on device-resident ``DeviceTensor`` memory.
"""

from pypto._core.runtime import Tensor
from pypto.runtime.config import PLATFORMS, BackendType, MemoryPlanner, OptimizationStrategy, RunConfig
from pypto.runtime.worker import ChipWorker, DeviceTensor, RegistrationHandle

__all__ = ["PLATFORMS", "BackendType", "ChipWorker", "DeviceTensor", "MemoryPlanner", "OptimizationStrategy",
           "RegistrationHandle", "RunConfig", "Tensor"]
