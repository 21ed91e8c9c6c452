"""CompiledProgram: what compile() returns, and what a kernel call dispatches to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pypto import ir
from pypto.jit.cache import SpecializationKey
from pypto.jit.errors import CodegenUnavailableError
from pypto.runtime.config import BackendType

CODEGEN_DOCS = "docs/jit.md#what-works-today"


@dataclass(frozen=True)
class CompiledProgram:
    """A specialized, lowered program and the directory its artifacts go to.

    ``stage`` says how far compilation went: "passes" means the program went
    through the pass pipeline and kernel code generation is not available
    yet, so ``codegen_available`` is False and calling it raises
    CodegenUnavailableError naming the missing piece.

    ``perf_hints`` are the performance hints of the compile (``ir.Diagnostic``
    values, as written to ``perf_hints_log``; see docs/diagnostics.md).
    """

    program: ir.Program
    output_dir: Path
    platform: str
    backend_type: BackendType
    param_names: tuple[str, ...]
    key: SpecializationKey
    stage: str = "passes"
    codegen_available: bool = False
    perf_hints: tuple[Any, ...] = ()

    @property
    def report_dir(self) -> Path:
        """Where compile() writes perf_hints.log and compile_profile.{txt,json}."""
        return self.output_dir / "report"

    @property
    def perf_hints_log(self) -> Path:
        """One line per performance hint: ``CODE severity file:line function: message (fix: ...)``."""
        return self.report_dir / "perf_hints.log"

    @property
    def passes_dump_dir(self) -> Path:
        """Where the program after every pass was printed, when dump_passes was on."""
        return self.output_dir / "passes_dump"

    def missing_piece(self) -> str:
        return (f"kernel code generation for platform '{self.platform}' is not available yet: "
                f"compile() stops after the passes (the lowered program is CompiledProgram.program"
                f"{', printed per pass under ' + str(self.passes_dump_dir) if self.passes_dump_dir.is_dir() else ''}); "
                f"see {CODEGEN_DOCS}")

    def __call__(self, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        del args, config, kwargs  # the kernel's arguments; nothing can run them yet
        raise CodegenUnavailableError(self.missing_piece())
