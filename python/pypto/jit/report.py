"""The compile report: ``report/perf_hints.log`` and ``report/compile_profile.{txt,json}``.

compile() hands this module what the pipeline run collected (a
``passes.DiagnosticsInstrument``) and a :class:`CompileProfile` that timed
every stage of the compile (front end, passes, code generation, toolchain,
writing files); it writes the files under ``<output_dir>/report/`` and says
on stderr when there are performance hints. docs/diagnostics.md describes the
hint codes and the profile.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

REPORT_DIR = "report"
PERF_HINTS_LOG = "perf_hints.log"
COMPILE_PROFILE = "compile_profile"

# The stages of a compile, in the order the profile's text lists them.
STAGES = ("setup", "frontend", "passes", "codegen", "toolchain", "write")
# The passes row for the pass manager's own time between passes (verification, dumps).
PASS_MANAGER = "(pass manager)"


def hint_line(hint: Any) -> str:
    """``CODE severity file:line function: message (fix: ...)`` for one ir.Diagnostic."""
    span = hint.span
    where = f"{span.filename or '<source>'}:{span.begin_line}" if span.begin_line > 0 else "<unknown>"
    fix = f" (fix: {hint.fix})" if hint.fix else ""
    return f"{hint.code} {hint.severity} {where} {hint.function}: {hint.message}{fix}"


def _sort_key(hint: Any) -> tuple[Any, ...]:
    span = hint.span
    return (span.filename, span.begin_line, span.begin_col, hint.code, hint.function, hint.message)


def select_hints(diagnostics: Iterable[Any], disabled: Iterable[str] | None) -> list[Any]:
    """The performance hints not silenced by ``disabled`` (codes like "PH002" or checks like
    "LoopInvariantLoad"), in source order."""
    silenced = set(disabled or ())
    hints = [d for d in diagnostics if d.is_perf_hint and d.code not in silenced and d.rule not in silenced]
    return sorted(hints, key=_sort_key)


def summary(hints: list[Any], log: Path) -> str:
    """``pypto: 3 performance hints (PH001 x2, PH003) — see <log>``."""
    counts = Counter(h.code for h in hints)
    codes = ", ".join(code if n == 1 else f"{code} x{n}" for code, n in sorted(counts.items()))
    noun = "performance hint" if len(hints) == 1 else "performance hints"
    return f"pypto: {len(hints)} {noun} ({codes}) — see {log}"


def write_perf_hints(output_dir: Path, hints: list[Any]) -> Path:
    """Writes one line per hint to <output_dir>/report/perf_hints.log (empty when there are none)."""
    log = output_dir / REPORT_DIR / PERF_HINTS_LOG
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(hint_line(h) + "\n" for h in hints), encoding="utf-8")
    return log


def write_perf_report(output_dir: Path, diagnostics: Any, *, disabled: Iterable[str] | None = None,
                      stream: TextIO | None = None) -> list[Any]:
    """Writes perf_hints.log, prints warnings and the hint summary to ``stream`` (stderr); returns the hints."""
    stream = stream if stream is not None else sys.stderr
    hints = select_hints(diagnostics.diagnostics, disabled)
    log = write_perf_hints(output_dir, hints)
    for warning in diagnostics.warnings:
        print(f"pypto: {warning}", file=stream)
    if hints:
        print(summary(hints, log), file=stream)
    return hints


# ------------------------------------------------------------ compile profile


@dataclass(frozen=True)
class StageTime:
    """One timed step of a compile: its stage (one of STAGES), what ran, and how long.

    ``details`` says what the step made or found: ``artifacts`` (the files a backend generated), ``kernels`` and
    ``from_cache`` (the kernel objects a toolchain built and how many came from the on-disk object cache),
    ``cached``, ``position`` (of a pass), ``ran``/``why`` (a toolchain that cannot run here).
    """

    stage: str
    name: str
    ms: float
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "name": self.name, "ms": round(self.ms, 3)} | self.details


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


class CompileProfile:
    """The time of every stage of one compile, in the order they ran; the clock starts when it is made."""

    def __init__(self) -> None:
        self._started = time.perf_counter()
        self._finished: float | None = None
        self.stages: list[StageTime] = []
        self.passes: list[dict[str, Any]] = []  # the TimingInstrument's rows: position, pass, ms

    @contextmanager
    def time(self, stage: str, name: str, **details: Any) -> Iterator[dict[str, Any]]:
        """Times the body as one row; the body may add to the yielded details (what the step made)."""
        start = time.perf_counter()
        yield details
        self.stages.append(StageTime(stage, name, _ms_since(start), details))

    def add(self, stage: str, name: str, ms: float, **details: Any) -> None:
        """A row timed elsewhere (a toolchain that did not run: 0 ms, with why)."""
        self.stages.append(StageTime(stage, name, ms, details))

    @contextmanager
    def time_passes(self, timing: Any) -> Iterator[None]:
        """Times a pipeline run that reports to ``timing`` (a ``passes.TimingInstrument``): one row per pass,
        and one for the rest of the run, the pass manager's own work (verifying properties, dumping the program)."""
        start = time.perf_counter()
        yield
        pipeline_ms = _ms_since(start)
        self.passes = json.loads(timing.to_json())["passes"]
        for entry in self.passes:
            self.add("passes", entry["pass"], entry["ms"], position=entry["position"])
        self.add("passes", PASS_MANAGER, max(0.0, pipeline_ms - sum(e["ms"] for e in self.passes)))

    def finish(self) -> None:
        """Stops the clock: total_ms is the compile until now."""
        self._finished = time.perf_counter()

    @property
    def total_ms(self) -> float:
        end = self._finished if self._finished is not None else time.perf_counter()
        return (end - self._started) * 1000.0

    @property
    def untimed_ms(self) -> float:
        """The part of total_ms between the timed steps (bookkeeping in Python)."""
        return max(0.0, self.total_ms - _sum_ms(self.stages))

    def to_json(self) -> str:
        """``{"total_ms", "untimed_ms", "stages": [{"stage", "name", "ms", ...}], "passes": [...]}``."""
        return json.dumps({"total_ms": round(self.total_ms, 3), "untimed_ms": round(self.untimed_ms, 3),
                           "stages": [s.as_dict() for s in self.stages],
                           "passes": [{"position": p["position"], "pass": p["pass"], "ms": round(p["ms"], 3)}
                                      for p in self.passes]}, indent=2)

    def report(self) -> str:
        """A summary line per stage, then a section per stage with its rows; shares are of the whole compile."""
        total = self.total_ms
        by_stage = {stage: [s for s in self.stages if s.stage == stage] for stage in _stage_order(self.stages)}
        summary_rows = [(stage, _sum_ms(rows), _stage_note(stage, rows)) for stage, rows in by_stage.items()]
        summary_rows.append(("untimed", self.untimed_ms, "between the steps"))
        sections = {stage: [(_row_name(s), s.ms, _row_note(s)) for s in rows] for stage, rows in by_stage.items()}
        width = max(len(name) for rows in [summary_rows, *sections.values()] for name, _, _ in rows)
        lines = [f"Compile profile: {total:.3f} ms", *_table(summary_rows, total, width)]
        for stage, rows in sections.items():
            ms = _sum_ms(by_stage[stage])
            lines += ["", f"{stage}: {ms:.3f} ms ({_share(ms, total):.1f}%)", *_table(rows, total, width)]
        return "\n".join(lines) + "\n"


def _sum_ms(stages: list[StageTime]) -> float:
    return sum(s.ms for s in stages)


def _share(ms: float, total: float) -> float:
    return 100.0 * ms / total if total > 0 else 0.0


def _stage_order(stages: list[StageTime]) -> list[str]:
    present = {s.stage for s in stages}
    return [stage for stage in STAGES if stage in present] + sorted(present - set(STAGES))


def _table(rows: list[tuple[str, float, str]], total: float, width: int) -> list[str]:
    """``  name  12.345 ms  10.0%  note``, the names padded to `width` so that the columns line up."""
    return [f"  {name:<{width}}  {ms:10.3f} ms  {_share(ms, total):5.1f}%{'  ' + note if note else ''}"
            for name, ms, note in rows]


def _row_name(stage: StageTime) -> str:
    position = stage.details.get("position")
    return f"{position:2d} {stage.name}" if position is not None else stage.name


def _row_note(stage: StageTime) -> str:
    """What a row made or found, for the text: the files a backend generated, the toolchain's cache use."""
    details = stage.details
    if details.get("ran") is False:
        return "not run: the toolchain cannot run on this machine"
    if "kernels" in details:
        return _cache_note(details["kernels"], details["from_cache"])
    if "artifacts" in details:
        files = details["artifacts"]
        return f"{len(files)} file{'' if len(files) == 1 else 's'}: {', '.join(files)}" if files else "no files"
    return ""


def _cache_note(kernels: int, from_cache: int) -> str:
    noun = "kernel" if kernels == 1 else "kernels"
    if kernels and from_cache == kernels:
        return f"cached: {kernels} {noun}, all from the object cache"
    return f"{kernels} {noun} compiled" + (f", {from_cache} from the object cache" if from_cache else "")


def _stage_note(stage: str, rows: list[StageTime]) -> str:
    if stage == "passes":
        return f"{len([r for r in rows if r.name != PASS_MANAGER])} passes"
    if stage == "toolchain":
        return "; ".join(f"{r.name}: {_row_note(r)}" for r in rows)
    return ""


def write_compile_profile(output_dir: Path, profile: CompileProfile) -> Path:
    """Writes the profile to report/compile_profile.txt (tables) and .json; returns the .txt."""
    stem = output_dir / REPORT_DIR / COMPILE_PROFILE
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".txt").write_text(profile.report(), encoding="utf-8")
    stem.with_suffix(".json").write_text(profile.to_json() + "\n", encoding="utf-8")
    return stem.with_suffix(".txt")
