"""Runs the printed-IR pass cases under tests/passes/<Pass>/ (see its README)."""

from pathlib import Path

import pytest
import yaml
from pass_runner import DEFAULT_PLATFORM, input_properties, run_one_pass

import pypto
import pypto.language as pl
from pypto import ir, passes

CASES_DIR = Path(__file__).resolve().parents[1] / "passes"
CASE_SUFFIXES = (".input.py", ".expected.py", ".error.txt", ".options.yaml", ".properties.yaml", ".platform",
                 ".xfail", ".hints.txt")


def _sibling(input_file: Path, suffix: str) -> Path:
    return input_file.with_name(input_file.name.removesuffix(".input.py") + suffix)


def _case_params():
    params = []
    for input_file in sorted(CASES_DIR.glob("*/*.input.py")):
        xfail_file = _sibling(input_file, ".xfail")
        marks = [pytest.mark.xfail(strict=True, reason=xfail_file.read_text().strip())] if xfail_file.exists() else []
        case_id = f"{input_file.parent.name}/{input_file.name.removesuffix('.input.py')}"
        params.append(pytest.param(input_file, id=case_id, marks=marks))
    return params


CASES = _case_params()


def _read_yaml(path: Path):
    return yaml.safe_load(path.read_text()) if path.exists() else None


def _run_case_pass(input_file: Path, program: ir.Program, tmp_path: Path, instruments: list | None = None):
    platform_file = _sibling(input_file, ".platform")
    return run_one_pass(input_file.parent.name, program, tmp_path,
                        options=_read_yaml(_sibling(input_file, ".options.yaml")),
                        platform=platform_file.read_text().strip() if platform_file.exists() else DEFAULT_PLATFORM,
                        extra_properties=_read_yaml(_sibling(input_file, ".properties.yaml")),
                        instruments=instruments)


def test_there_are_cases():
    assert len(CASES) >= 5


def test_every_case_file_belongs_to_a_case():
    for path in CASES_DIR.glob("*/*.*"):
        suffix = next((s for s in CASE_SUFFIXES if path.name.endswith(s)), None)
        assert suffix, f"{path}: not a case file (known suffixes: {', '.join(CASE_SUFFIXES)})"
        stem = path.name.removesuffix(suffix)
        assert path.with_name(stem + ".input.py").exists(), f"{path}: no {stem}.input.py beside it"


def test_the_pipeline_declares_what_the_pass_requires():
    assert input_properties("InitMemRef") == ["SSAForm", "TileMemoryInferred"]
    assert input_properties("Simplify") == ["SSAForm"]
    assert input_properties("Simplify", ["NoNestedCalls", "SSAForm"]) == ["SSAForm", "NoNestedCalls"]


@pytest.mark.parametrize("input_file", CASES)
def test_pass_case(input_file, tmp_path):
    expected_file = _sibling(input_file, ".expected.py")
    error_file = _sibling(input_file, ".error.txt")
    assert expected_file.exists() != error_file.exists(), \
        f"{input_file.name}: give exactly one of .expected.py or .error.txt"

    program = pl.parse(input_file.read_text(), filename=str(input_file))
    if error_file.exists():
        with pytest.raises(pypto.Error) as info:
            _run_case_pass(input_file, program, tmp_path)
        assert error_file.read_text().strip() in str(info.value)
        return

    diagnostics = passes.DiagnosticsInstrument()
    result = _run_case_pass(input_file, program, tmp_path, [diagnostics])
    hints_file = _sibling(input_file, ".hints.txt")
    if hints_file.exists():
        reported = [f"{d.code} line {d.span.begin_line}" for d in diagnostics.diagnostics]
        assert reported == hints_file.read_text().split("\n")[:-1], "\n".join(d.message for d in diagnostics.diagnostics)
    expected_text = expected_file.read_text()
    ir.assert_structural_equal(result, pl.parse(expected_text), enable_auto_mapping=True)
    assert ir.as_python(result) == expected_text
