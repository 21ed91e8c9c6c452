"""Code generation and building: the steps of compile() after the passes.

The lowered program's kernel functions go to the kernel backend
(``RunConfig.backend``; by default the NPU backend: PTO-ISA C++ under
``kernels/``), its orchestration functions to the host backend (LLVM IR
under ``orchestration/``). The toolchain the kernel backend's manifest names
for the platform builds them: on ``a2a3sim``/``a5sim`` the simulator compiles
the kernels in the process (cached on disk) and links everything into one
JIT session; on ``a2a3``/``a5`` the artifacts are written and running says
what is missing.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import pypto
from pypto import ir
from pypto._core import backend as _backend
from pypto.runtime.config import DEFAULT_BACKEND as KERNEL_BACKEND

HOST_BACKEND = "host"
TORCH_BACKEND = "torch"
CACHE_DIR_ENV = "PYPTO_CACHE_DIR"

Artifact = _backend.Artifact
ArtifactKind = _backend.ArtifactKind
Executable = _backend.Executable


def code_backends(kernel_backend: str = KERNEL_BACKEND) -> tuple[str, str]:
    """The backends that generate a program's code, in order: the kernel backend (kernel sources), then the
    host backend (orchestration IR)."""
    return kernel_backend, HOST_BACKEND


def generate(backend: str, program: ir.Program, platform: str) -> list[Artifact]:
    """What backend `backend` generates for a lowered program (one of code_backends)."""
    return list(_backend.generate(backend, program, platform))


def debug_artifacts(program: ir.Program, platform: str) -> list[Artifact]:
    """The torch script of the lowered program (``debug/<program>_torch.py``, see docs/torch-codegen.md).

    A program the script cannot model still compiles: the reason is a warning instead of the script. A
    distributed program (window parameters) has none: the script runs one process, without the other ranks.
    """
    if _uses_windows(program):
        return []
    try:
        return list(_backend.generate(TORCH_BACKEND, program, platform))
    except pypto.CodegenError as error:
        warnings.warn(f"no torch script for {program.name}: {error}", stacklevel=3)
        return []


def _uses_windows(program: ir.Program) -> bool:
    return any(isinstance(p.type, ir.DistributedTensorType) for f in program.functions for p in f.params)


def write(output_dir: Path, artifacts: list[Artifact]) -> list[Path]:
    return [Path(p) for p in _backend.write_artifacts(output_dir, artifacts)]


@dataclass(frozen=True)
class Toolchain:
    """The toolchain of a platform, and why it cannot run here (empty when it can)."""

    name: str
    unavailable: str

    @property
    def can_run(self) -> bool:
        return not self.unavailable


def toolchain(platform: str, backend: str = KERNEL_BACKEND) -> Toolchain:
    """The toolchain the kernel backend's manifest names for the platform (`toolchains:`)."""
    name = _backend.toolchain_for(backend, platform)
    return Toolchain(name, _backend.toolchain_unavailable(name))


def build(chain: Toolchain, artifacts: list[Artifact], platform: str, *, check_nan: bool = False,
          check_pipe_hazards: bool = False, kernel_include_dirs: dict[str, list[str]] | None = None) -> Executable:
    """Compiles and links the artifacts; kernel objects are cached under $PYPTO_CACHE_DIR or ~/.cache/pypto.

    check_nan: kernels fault at the first tile instruction whose result holds a NaN (RunConfig.check_nan).
    check_pipe_hazards: runs fault at the first access no pipe event orders (RunConfig.check_pipe_hazards).
    kernel_include_dirs: function name -> further #include folders of its kernel (``kernel_include_dirs``).
    """
    cache_dir = os.environ.get(CACHE_DIR_ENV) or None
    return _backend.build(chain.name, artifacts, platform, cache_dir=cache_dir, check_nan=check_nan,
                          check_pipe_hazards=check_pipe_hazards, kernel_include_dirs=kernel_include_dirs or {})


def kernel_include_dirs(program: ir.Program) -> dict[str, list[str]]:
    """The ``include_dirs`` attribute of each kernel that has one (``@pl.jit.extern(include_dirs=[...])``,
    absolute paths): the toolchain compiles that kernel with them on its include path."""
    return {f.name: list(f.attrs["include_dirs"]) for f in program.functions if f.attrs.get("include_dirs")}


def read_artifacts(output_dir: Path) -> list[Artifact]:
    """The kernel sources and orchestration IR of a compile output folder (possibly edited by hand)."""
    artifacts = []
    for core in ("aic", "aiv"):
        for path in sorted((output_dir / "kernels" / core).glob("*.cpp")):
            artifacts.append(Artifact(f"kernels/{core}/{path.name}", ArtifactKind.KernelSource, path.read_text(),
                                      function=path.stem, core=getattr(ir.FunctionType, core.upper())))
    for path in sorted((output_dir / "orchestration").glob("*.ll")):
        artifacts.append(Artifact(f"orchestration/{path.name}", ArtifactKind.OrchestrationIR, path.read_text(),
                                  function=path.stem))
    return artifacts
