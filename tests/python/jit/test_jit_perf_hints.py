"""compile() writes report/perf_hints.log and report/compile_profile, and says so on stderr."""

import inspect
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from jit_testing import NO_PASSES

import pypto.language as pl
from pypto import passes
from pypto.jit import report
from pypto.runtime import RunConfig

REPO = Path(__file__).resolve().parents[3]
LOWERING = ["InlineFunctions", "UnrollLoops", "Simplify", "FlattenCallExpr", "OutlineHierarchyScopes",
            "OutlineIncoreScopes", "OutlineClusterScopes", "ConvertTensorToTileOps", "FlattenTileNdTo2D",
            "InferTileMemorySpace", "InitMemRef", "MemoryReuse", "AllocateMemoryAddr", "DeriveCallDirections",
            "Simplify", "PerfHints"]


@pl.jit
def scale_rows(x: pl.Tensor[[1024, 256], pl.FP32], w: pl.Tensor[[16, 256], pl.FP32],
               out: pl.Out[pl.Tensor[[1024, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, 1024, 16):
            t = pl.load(x, [i, 0], [16, 256], target_memory=pl.Mem.Vec)
            s = pl.load(w, [0, 0], [16, 256], target_memory=pl.Mem.Vec)  # same block every iteration
            out = pl.store(pl.mul(t, s), [i, 0], out)
    return out


@pl.jit
def scale_rows_hoisted(x: pl.Tensor[[1024, 256], pl.FP32], w: pl.Tensor[[16, 256], pl.FP32],
                       out: pl.Out[pl.Tensor[[1024, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.load(w, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        for i in pl.range(0, 1024, 16):
            t = pl.load(x, [i, 0], [16, 256], target_memory=pl.Mem.Vec)
            out = pl.store(pl.mul(t, s), [i, 0], out)
    return out


def line_of(kernel, marker: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    return first + next(i for i, text in enumerate(lines) if marker in text)


@pytest.fixture
def pipeline(tmp_path):
    """The lowering pipeline ending in PerfHints, as a YAML file (a pass plugin that is not built is an error)."""
    path = tmp_path / "perf_hints.yaml"
    path.write_text("name: perf_hints_test\ndescription: lower, then report performance hints\n"
                    "input_properties: [SSAForm]\npasses:\n" + "".join(f"  - {name}\n" for name in LOWERING))
    passes.PassManager(str(path))
    return str(path)


@pytest.fixture(autouse=True)
def fresh_caches(build_dir):
    for kernel in (scale_rows, scale_rows_hoisted):
        kernel.clear_cache()


def test_compile_writes_the_hints_and_prints_a_summary(pipeline, tmp_path, capsys):
    compiled = scale_rows.compile(config=RunConfig(pipeline=pipeline, save_kernels_dir=str(tmp_path / "out")))
    log = tmp_path / "out" / "report" / "perf_hints.log"
    assert compiled.perf_hints_log == log
    lines = log.read_text().splitlines()
    source = inspect.getsourcefile(scale_rows.fn)
    assert len(lines) == 1
    assert lines[0].startswith(f"PH002 perf_hint {source}:{line_of(scale_rows, 'same block')} scale_rows_incore_0: "
                               "tile.load of 's' ([16, 256] FP32 from 'w') is inside the loop over 'i'")
    assert lines[0].endswith("(fix: load it once before the loop over 'i' "
                             f"(line {line_of(scale_rows, 'pl.range')}) and use that tile inside the loop)")
    assert [h.code for h in compiled.perf_hints] == ["PH002"]
    assert capsys.readouterr().err == f"pypto: 1 performance hint (PH002) — see {log}\n"


def test_the_fixed_kernel_has_an_empty_log_and_no_summary(pipeline, tmp_path, capsys):
    compiled = scale_rows_hoisted.compile(config=RunConfig(pipeline=pipeline, save_kernels_dir=str(tmp_path / "out")))
    assert compiled.perf_hints_log.read_text() == ""
    assert compiled.perf_hints == ()
    assert capsys.readouterr().err == ""


def test_disabled_diagnostics_silence_a_hint_by_code_or_check(pipeline, tmp_path, capsys):
    for name, silenced in (("by_code", "PH002"), ("by_check", "LoopInvariantLoad")):
        scale_rows.clear_cache()
        config = RunConfig(pipeline=pipeline, save_kernels_dir=str(tmp_path / name),
                           disabled_diagnostics=frozenset({silenced}))
        assert scale_rows.compile(config=config).perf_hints_log.read_text() == ""
    assert capsys.readouterr().err == ""


def test_compile_profile_times_every_pass(pipeline, tmp_path):
    compiled = scale_rows_hoisted.compile(config=RunConfig(pipeline=pipeline, save_kernels_dir=str(tmp_path / "out")))
    table = (compiled.report_dir / "compile_profile.txt").read_text()
    assert re.search(rf"^  passes +[\d.]+ ms +[\d.]+%  {len(LOWERING)} passes$", table, re.M)
    passes_section = next(s for s in table.split("\n\n") if s.startswith("passes:")).splitlines()
    assert passes_section[-2].split()[:2] == [str(len(LOWERING)), "PerfHints"]
    profile = json.loads((compiled.report_dir / "compile_profile.json").read_text())
    assert [p["pass"] for p in profile["passes"]] == LOWERING


def test_the_pass_manager_hands_hints_to_a_diagnostics_instrument(pipeline):
    program = scale_rows.lower(config=RunConfig(pipeline=NO_PASSES))  # the front end's program
    collected = passes.DiagnosticsInstrument()
    passes.PassManager(pipeline).run(program, platform="a5sim", instruments=[collected])
    assert [(d.code, d.rule, d.severity, d.is_perf_hint, d.is_error) for d in collected.diagnostics] == [
        ("PH002", "LoopInvariantLoad", "perf_hint", True, False)]
    assert collected.perf_hints[0].fix.startswith("load it once before the loop over 'i'")
    assert collected.warnings == []
    with pytest.raises(ValueError, match="a9sim"):
        passes.PassManager(pipeline).run(program, platform="a9sim")


def test_the_summary_counts_codes():
    hints = [SimpleNamespace(code=c) for c in ("PH003", "PH001", "PH001")]
    assert report.summary(hints, Path("r/perf_hints.log")) == \
        "pypto: 3 performance hints (PH001 x2, PH003) — see r/perf_hints.log"


def _diagnostic(code, line, severity="perf_hint", fix="do this"):
    span = SimpleNamespace(filename="k.py", begin_line=line, begin_col=5)
    return SimpleNamespace(code=code, rule=f"Check{code}", severity=severity, is_perf_hint=severity == "perf_hint",
                           function="k", message=f"{code} here", fix=fix, span=span)


def test_the_report_sorts_hints_leaves_out_silenced_ones_and_prints_warnings(tmp_path):
    warning = SimpleNamespace(severity="warning", is_perf_hint=False, code="W1", rule="Unused")
    collected = SimpleNamespace(diagnostics=[_diagnostic("PH002", 9), _diagnostic("PH001", 3, fix=""), warning,
                                             _diagnostic("PH004", 1)],
                                warnings=["k.py:2:1: warning: [Unused/W1] in function 'k': x is unused (AssignStmt)"])
    stream = io.StringIO()
    hints = report.write_perf_report(tmp_path, collected, disabled={"CheckPH004"}, stream=stream)
    assert [h.code for h in hints] == ["PH001", "PH002"]
    assert (tmp_path / "report" / "perf_hints.log").read_text() == (
        "PH001 perf_hint k.py:3 k: PH001 here\n"
        "PH002 perf_hint k.py:9 k: PH002 here (fix: do this)\n")
    assert stream.getvalue() == (
        "pypto: k.py:2:1: warning: [Unused/W1] in function 'k': x is unused (AssignStmt)\n"
        f"pypto: 2 performance hints (PH001, PH002) — see {tmp_path / 'report' / 'perf_hints.log'}\n")


def test_docs_list_every_hint_code_the_pass_can_emit():
    """Each `{"PHxxx", "CheckName"}` of the PerfHints pass has a `### PHxxx — CheckName` section, and back."""
    source = "".join(path.read_text() for path in sorted((REPO / "plugins/passes/perf_hints").glob("*.cpp")))
    emitted = set(re.findall(r'\{"(PH\d{3})", "(\w+)"\}', source))
    documented = re.findall(r"^### (PH\d{3}) — (\w+)$", (REPO / "docs/diagnostics.md").read_text(), re.M)
    assert len(emitted) >= 4
    assert sorted(documented) == sorted(emitted)
