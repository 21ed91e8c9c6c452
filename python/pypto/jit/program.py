"""Compiling a whole ``ir.Program`` (a ``@pl.program`` class): ``pypto.ir.compile``.

A ``@pl.jit`` kernel specializes and caches; a program class is already specialized (its annotations
are its types), so compiling one is the rest of the recipe of ``JITFunction.compile``: lower, generate,
build (kernel objects still come from the disk cache). The result is the same ``CompiledProgram``; calling
it runs the program's entry orchestration function.
"""

from __future__ import annotations

from pathlib import Path

from pypto import ir
from pypto.jit import report, selection
from pypto.jit.compiled import CompiledProgram
from pypto.jit.function import build_program, make_output_dir
from pypto.runtime.config import RunConfig


def compile_program(program: ir.Program, output_dir: str | Path | None = None, *,
                    config: RunConfig | None = None) -> CompiledProgram:
    """Lowers, generates and builds `program` for `config` (default: RunConfig(dump_passes=True), as a
    kernel call). The output goes to `output_dir`, else as for a kernel (save_kernels_dir, or
    build_output/<program>_<time>)."""
    if not isinstance(program, ir.Program):
        raise TypeError(f"ir.compile takes an ir.Program (a @pl.program class), got {type(program).__name__}; "
                        "a @pl.jit kernel compiles with kernel.compile(...)")
    config = RunConfig(dump_passes=True) if config is None else config
    if not isinstance(config, RunConfig):
        raise TypeError(f"config must be a pypto.runtime.RunConfig, got {type(config).__name__}")
    profile = report.CompileProfile()
    with profile.time("setup", "load plugins"):
        selection.prepare(config)
    with profile.time("setup", "output directory"):
        folder = make_output_dir(config, program.name) if output_dir is None else _existing_dir(Path(output_dir))
    return build_program(program, config, folder, program_entry, profile=profile)


def _existing_dir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def program_entry(program: ir.Program) -> ir.Function:
    """The orchestration function a call runs: the one marked pl.func_attr({"entry": True}), else the only one."""
    orchestrations = [f for f in program.functions if f.func_type == ir.FunctionType.Orchestration]
    marked = [f for f in orchestrations if f.attrs.get("entry") is True]
    if len(marked) == 1:
        return marked[0]
    if len(orchestrations) == 1 and not marked:
        return orchestrations[0]
    names = ", ".join(f.name for f in (marked or orchestrations)) or "none"
    raise ValueError(f"ir.compile: program '{program.name}' needs one orchestration function to run, and "
                     f"{'several are marked entry' if marked else 'it has ' + str(len(orchestrations))} ({names}); "
                     'mark the one a call runs with pl.func_attr({"entry": True}) as its first statement')
