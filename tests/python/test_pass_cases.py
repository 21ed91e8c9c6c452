"""Runs the printed-IR pass cases under tests/passes/<Pass>/ (see its README)."""

from pathlib import Path

import pytest
import yaml

import pypto
import pypto.language as pl
from pypto import ir, passes

CASES_DIR = Path(__file__).resolve().parents[1] / "passes"
CASES = sorted(CASES_DIR.glob("*/*.input.py"))


def _case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name.removesuffix('.input.py')}"


def _run_pass(pass_name: str, options_file: Path, program: ir.Program, tmp_path: Path) -> ir.Program:
    step = {"name": pass_name}
    if options_file.exists():
        step["options"] = yaml.safe_load(options_file.read_text())
    properties = ["SSAForm"]
    properties_file = options_file.with_name(options_file.name.replace(".options.yaml", ".properties.yaml"))
    if properties_file.exists():
        properties += yaml.safe_load(properties_file.read_text())
    pipeline = tmp_path / "one_pass.yaml"
    pipeline.write_text(yaml.safe_dump({"name": "one_pass", "input_properties": properties, "verify": True,
                                        "passes": [step]}))
    return passes.PassManager(str(pipeline)).run(program)


def test_there_are_cases():
    assert len(CASES) >= 5


@pytest.mark.parametrize("input_file", CASES, ids=_case_id)
def test_pass_case(input_file, tmp_path):
    stem = input_file.name.removesuffix(".input.py")
    expected_file = input_file.with_name(f"{stem}.expected.py")
    error_file = input_file.with_name(f"{stem}.error.txt")
    options_file = input_file.with_name(f"{stem}.options.yaml")
    assert expected_file.exists() != error_file.exists(), f"{stem}: give exactly one of .expected.py or .error.txt"

    program = pl.parse(input_file.read_text(), filename=str(input_file))
    if error_file.exists():
        with pytest.raises(pypto.Error) as info:
            _run_pass(input_file.parent.name, options_file, program, tmp_path)
        assert error_file.read_text().strip() in str(info.value)
        return

    result = _run_pass(input_file.parent.name, options_file, program, tmp_path)
    expected_text = expected_file.read_text()
    ir.assert_structural_equal(result, pl.parse(expected_text), enable_auto_mapping=True)
    assert ir.as_python(result) == expected_text
