"""The compile report: ``report/perf_hints.log`` and ``report/compile_profile.{txt,json}``.

compile() hands this module what the pipeline run collected (a
``passes.DiagnosticsInstrument`` and a ``passes.TimingInstrument``); it writes
the files under ``<output_dir>/report/`` and says on stderr when there are
performance hints. docs/diagnostics.md describes the hint codes.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

REPORT_DIR = "report"
PERF_HINTS_LOG = "perf_hints.log"
COMPILE_PROFILE = "compile_profile"


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


def write_compile_profile(output_dir: Path, timing: Any) -> Path:
    """Writes the time of every pass to report/compile_profile.txt (a table) and .json."""
    stem = output_dir / REPORT_DIR / COMPILE_PROFILE
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".txt").write_text(timing.report(), encoding="utf-8")
    stem.with_suffix(".json").write_text(timing.to_json() + "\n", encoding="utf-8")
    return stem.with_suffix(".txt")


def write_compile_report(output_dir: Path, diagnostics: Any, timing: Any, *,
                         disabled: Iterable[str] | None = None, stream: TextIO | None = None) -> list[Any]:
    """Writes the report files, prints warnings and the hint summary to ``stream`` (stderr); returns the hints."""
    stream = stream if stream is not None else sys.stderr
    hints = select_hints(diagnostics.diagnostics, disabled)
    log = write_perf_hints(output_dir, hints)
    write_compile_profile(output_dir, timing)
    for warning in diagnostics.warnings:
        print(f"pypto: {warning}", file=stream)
    if hints:
        print(summary(hints, log), file=stream)
    return hints
