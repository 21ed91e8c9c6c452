"""Bisection over the pass pipeline: which pass changed what the program computes.

:func:`bisect` compiles a kernel with every pass dumped, runs the simulator
on copies of the inputs, then generates the torch script of the parsed
program and of every pass dump in order and runs each on copies of the same
inputs. The first stage whose outputs differ from the stage before it names
the pass that broke the numbers; a final script that differs from the
simulator points at the kernel code generation or the simulator instead
(docs/torch-codegen.md, "Finding the pass that broke the numbers"). With
``keep_stages=True`` each stage's script and outputs stay on disk beside the
simulator's, to open and rerun the stage that diverged.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto.debug import load_torch_script, torch_codegen
from pypto.jit.annotations import call_outputs

__all__ = ["Divergence", "BisectReport", "bisect", "default_tolerance"]

# (rtol, atol) per floating dtype name; other dtypes must be equal.
TOLERANCES = {"float32": (1e-4, 1e-4), "float64": (1e-9, 1e-9), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1e-2)}


def default_tolerance(dtype: Any) -> tuple[float, float]:
    """(rtol, atol) for comparing tensors of `dtype`: (0, 0) for integers and bools."""
    return TOLERANCES.get(str(dtype).removeprefix("torch."), (0.0, 0.0))


@dataclass
class Divergence:
    """Where one output differs: the largest absolute error, its index and the two values there."""

    output: str
    max_abs: float
    max_rel: float  # over the differing elements whose expected value is not 0; nan when there are none
    index: tuple[int, ...]
    expected: float
    got: float
    note: str = ""  # a shape or dtype difference, when the values cannot be compared element by element

    def __str__(self) -> str:
        if self.note:
            return f"output '{self.output}': {self.note}"
        rel = "none (every differing element should be 0)" if math.isnan(self.max_rel) else f"{self.max_rel:.6g}"
        return (f"output '{self.output}': max abs error {self.max_abs:.6g}, max rel error {rel}, "
                f"at index {list(self.index)} (expected {self.expected:.6g}, got {self.got:.6g})")


@dataclass
class BisectReport:
    """What :func:`bisect` found. ``ok`` when no pass changed the outputs and the final script agrees with the
    simulator."""

    kernel: str
    dump_dir: Path
    stages: list[str] = field(default_factory=list)  # the stages run, in order ("input", then pass names)
    culprit: str | None = None  # the first pass after which the outputs changed
    culprit_dump: Path | None = None  # its dump file
    previous: str | None = None  # the stage it was compared with
    divergence: Divergence | None = None  # culprit stage against the previous stage
    vs_simulator: Divergence | None = None  # culprit stage against the simulator (None: they agree)
    final_mismatch: Divergence | None = None  # last stage's script against the simulator
    simulated: bool = True  # False where the simulator could not run the program
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (stage, why) for stages with no script
    stages_dir: Path | None = None  # with keep_stages: each stage's script and outputs, the inputs, the simulator's

    @property
    def ok(self) -> bool:
        return self.culprit is None and self.final_mismatch is None

    def __str__(self) -> str:
        lines = [f"bisect {self.kernel}: {len(self.stages)} stages (input and {max(len(self.stages) - 1, 0)} "
                 f"passes), dumps in {self.dump_dir}"]
        if self.culprit is not None:
            lines.append(f"FIRST DIVERGING PASS: {self.culprit} (dump {self.culprit_dump.name if self.culprit_dump else '?'})"
                         f"; its outputs differ from those after {self.previous}:")
            lines.append(f"  {self.divergence}")
            if self.simulated:
                lines.append("  and from the simulator: " + (str(self.vs_simulator) if self.vs_simulator else
                                                               "no, it agrees with the simulator"))
        else:
            lines.append("no pass changed the outputs")
        if not self.simulated:
            lines.append("the simulator could not run the program; only the stages were compared")
        elif self.final_mismatch is not None:
            lines.append("FINAL SCRIPT DIFFERS FROM THE SIMULATOR (a kernel codegen or simulator bug, not a pass):")
            lines.append(f"  {self.final_mismatch}")
        else:
            lines.append("the final script agrees with the simulator")
        for stage, why in self.skipped:
            lines.append(f"skipped {stage}: {why}")
        if self.stages_dir is not None:
            lines.append(f"stage scripts and outputs in {self.stages_dir}")
        return "\n".join(lines)


# ------------------------------------------------------------------ comparing


def compare(expected: dict[str, Any], got: dict[str, Any], rtol: float | None = None,
            atol: float | None = None) -> Divergence | None:
    """The first output (in `expected`'s order) where `got` differs, or None."""
    import torch

    for name, want in expected.items():
        have = got.get(name)
        if have is None:
            return Divergence(name, float("inf"), float("inf"), (), float("nan"), float("nan"), note="missing")
        want, have = torch.as_tensor(want), torch.as_tensor(have)
        if want.shape != have.shape:
            return Divergence(name, float("inf"), float("inf"), (), float("nan"), float("nan"),
                              note=f"shape {list(have.shape)}, expected {list(want.shape)}")
        default_rtol, default_atol = default_tolerance(want.dtype)
        r = default_rtol if rtol is None else rtol
        a = default_atol if atol is None else atol
        w, h = want.to(torch.float64), have.to(torch.float64)
        both_nan = torch.isnan(w) & torch.isnan(h)
        diff = torch.where(both_nan, torch.zeros_like(w), (w - h).abs())
        diff = torch.where(torch.isnan(diff), torch.full_like(diff, float("inf")), diff)
        bad = diff > a + r * w.abs()
        if not bool(bad.any()):
            continue
        # A relative error means nothing where the expected value is 0: those elements count in max abs only.
        relative = bad & (w != 0)
        max_rel = float((diff[relative] / w.abs()[relative]).max()) if bool(relative.any()) else math.nan
        flat = int(torch.argmax(torch.where(bad, diff, torch.full_like(diff, -1.0))))
        index = tuple(int(i) for i in torch.unravel_index(torch.tensor(flat), w.shape)) if w.dim() else ()
        return Divergence(name, float(diff.max()), max_rel, index,
                          float(w.reshape(-1)[flat]), float(h.reshape(-1)[flat]))
    return None


# ------------------------------------------------------------------- the run


def _clone(values: dict[str, Any]) -> dict[str, Any]:
    import torch

    return {k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in values.items()}


def _run_script(script_text: str, specs: list[Any], values: dict[str, Any]) -> dict[str, Any]:
    script = load_torch_script(script_text)
    args = _clone(values)
    result = script.ENTRY(*[args[name] for name, *_ in script.PARAMS])
    return call_outputs(specs, args, result)


class StageFiles:
    """What keep_stages leaves in `folder`: ``inputs.npz``, ``simulator.npz`` and, per stage, named as its dump in
    passes_dump (``NN_<stage>``), ``NN_<stage>_torch.py`` (a standalone script: ``python NN_<stage>_torch.py
    --inputs inputs.npz``) and ``NN_<stage>.npz``, its outputs."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def save(self, name: str, values: dict[str, Any]) -> None:
        from pypto.cli_kernels import _save

        _save(str(self.folder / f"{name}.npz"), values)

    def save_stage(self, dump: Path, script_text: str, outputs: dict[str, Any]) -> None:
        (self.folder / f"{dump.stem}_torch.py").write_text(script_text)
        self.save(dump.stem, outputs)


def _stage_name(dump: Path) -> str:
    """`00_input.py` -> `input`, `05_after_Simplify.py` or `05_Simplify.py` -> `Simplify`."""
    return re.sub(r"^\d+_(after_)?", "", dump.stem)


def bisect(kernel: Any, *args: Any, config: Any = None, rtol: float | None = None, atol: float | None = None,
           dump_dir: str | Path | None = None, keep_stages: bool = False, **kwargs: Any) -> BisectReport:
    """Finds the first pass after which the kernel's torch script computes something else.

    `args`/`kwargs` are the kernel's arguments (they are not modified: every run gets copies). `config` is the
    RunConfig to compile with (its pipeline and plugins); the passes are dumped into `dump_dir` (default: a new
    temporary folder). `rtol`/`atol` override the per-dtype tolerances (integers: exact). `keep_stages` also
    writes, under ``<dump_dir>/bisect_stages/``, the inputs, the simulator's outputs and every stage's torch
    script and outputs (see :class:`StageFiles`); ``report.stages_dir`` names the folder.
    """
    from pypto.language import parse
    from pypto.runtime.config import RunConfig

    config = RunConfig() if config is None else config
    out_dir = Path(dump_dir) if dump_dir is not None else Path(tempfile.mkdtemp(prefix=f"pypto_bisect_{kernel.__name__}_"))
    config = dataclasses.replace(config, dump_passes=True, save_kernels_dir=str(out_dir))

    bound = inspect.signature(kernel.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    values = dict(bound.arguments)
    specs = kernel.param_specs()

    # Compiled afresh (not from the kernel's cache), so the dumps are written for this run.
    specialization = kernel._specialize(args, kwargs, config, None, "compile", samples_optional=False)
    compiled = kernel._build(specialization, config)
    report = BisectReport(kernel.__name__, compiled.passes_dump_dir)
    files = StageFiles(out_dir / "bisect_stages") if keep_stages else None
    if files is not None:
        report.stages_dir = files.folder
        files.save("inputs", values)

    simulated: dict[str, Any] | None = None
    if compiled.can_run:
        sim_values = _clone(values)
        result = compiled.run_bound({p.name: sim_values[p.name] for p in compiled.params})
        simulated = call_outputs(specs, sim_values, result)
        if files is not None:
            files.save("simulator", simulated)
    report.simulated = simulated is not None

    dumps = sorted(p for p in compiled.passes_dump_dir.glob("*.py") if re.match(r"^\d+_", p.name))
    previous: tuple[str, dict[str, Any]] | None = None
    for dump in dumps:
        stage = _stage_name(dump)
        report.stages.append(stage)
        try:
            script_text = torch_codegen(parse(dump.read_text(), filename=str(dump)))
            outputs = _run_script(script_text, specs, values)
        except Exception as exc:  # noqa: BLE001 - a stage without a script is reported and passed over
            report.skipped.append((stage, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))
            continue
        if files is not None:
            files.save_stage(dump, script_text, outputs)
        if previous is not None and report.culprit is None:
            divergence = compare(previous[1], outputs, rtol, atol)
            if divergence is not None:
                report.culprit, report.culprit_dump, report.previous = stage, dump, previous[0]
                report.divergence = divergence
                if simulated is not None:
                    report.vs_simulator = compare(simulated, outputs, rtol, atol)
        previous = (stage, outputs)
    if previous is not None and simulated is not None:
        report.final_mismatch = compare(simulated, previous[1], rtol, atol)
    return report


# ---------------------------------------------------------------- the command


def bisect_command(args: Any) -> int:
    """``pypto debug bisect FILE.py::FUNC``: inputs as ``pypto run`` makes them; ``--dump-passes`` keeps every
    stage's script and outputs (``keep_stages``); exit status 1 when something diverged."""
    import torch

    from pypto import cli_kernels

    kernel = cli_kernels.load_kernel(args.target)
    config = cli_kernels.run_config(args)
    specs = kernel.param_specs()
    cli_kernels._check_fully_annotated(kernel, specs)
    given = cli_kernels._read_inputs(args.inputs, kernel, specs) if args.inputs else {}
    generator = torch.Generator().manual_seed(args.seed)
    values = {s.name: given[s.name] if s.name in given else cli_kernels._made_input(kernel, s, generator)
              for s in specs if s.name in given or s.kind == "tensor"}
    values |= {s.name: cli_kernels._scalar_default(kernel, s) for s in specs
               if s.kind == "scalar" and s.name not in values}
    report = bisect(kernel, config=config, rtol=args.rtol, atol=args.atol, dump_dir=args.out,
                    keep_stages=args.dump_passes, **values)
    print(report)
    return 0 if report.ok else 1
