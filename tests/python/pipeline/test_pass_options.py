"""Pass options given in code: PassManager(options=...) and the RunConfig fields that stand for them."""

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto.runtime import RunConfig


@pl.jit
def overwrite_after_read(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                         c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="read_c"):
        b[:] = pl.exp(c)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="write_c"):
        c[:] = pl.add(a, a)
    return b


def _compiler_deps(program: ir.Program) -> list:
    text = ir.as_python(program.get_function("overwrite_after_read"))
    return [line for line in text.splitlines() if "compiler_deps" in line]


def test_run_config_turns_on_derived_task_dependencies():
    on = overwrite_after_read.lower(config=RunConfig(analyze_auto_scopes_for_deps=True))
    off = overwrite_after_read.lower(config=RunConfig(analyze_auto_scopes_for_deps=False))
    assert len(_compiler_deps(on)) == 1 and "write_c" in _compiler_deps(on)[0]
    assert _compiler_deps(off) == []


def test_options_in_code_override_the_pipeline_file():
    manager = passes.PassManager("default", options={"UnrollLoops": {"max_iterations": 7}})
    steps = {step["pass"]: step["options"] for step in manager.pipeline["passes"]}
    assert steps["UnrollLoops"]["max_iterations"] == 7


def test_options_for_a_pass_the_pipeline_does_not_run_are_an_error():
    with pytest.raises(pypto.PipelineError, match="options given for pass 'NoSuchPass'.*its passes are ConvertToSSA"):
        passes.PassManager("default", options={"NoSuchPass": {"x": 1}})


def test_an_unknown_option_is_an_error():
    with pytest.raises(pypto.PipelineError, match="max_iteration"):
        passes.PassManager("default", options={"UnrollLoops": {"max_iteration": 7}})
