"""The default pipeline on whole programs: the front-end test programs and the manual's
examples lower to verified tile-level kernels with memory inside the platform, the
verifier passes after every pass, and the pipeline is stable."""

import sys
from pathlib import Path

import pytest
import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto.runtime import RunConfig

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from language import programs  # noqa: E402
from pipeline import e2e_programs  # noqa: E402
from pipeline.lowering_checks import kernels, problems  # noqa: E402

PIPELINE = "default"
# The same passes with the verifier after each one.
VERIFIED = "debug"


def _lower(program: ir.Program, platform: str = "a2a3sim") -> ir.Program:
    return passes.PassManager(PIPELINE).run(program, verify=True, platform=platform)


@pytest.mark.parametrize("cls", programs.PROGRAMS, ids=lambda c: c.__name__)
def test_front_end_program_lowers_with_the_verifier_after_every_pass(cls):
    lowered = _lower(pl.program(cls))
    assert problems(lowered) == []


def test_debug_pipeline_runs_the_default_passes():
    assert passes.PassManager(VERIFIED).pass_names == passes.PassManager(PIPELINE).pass_names


def _sample(kernel):
    """Arguments for a kernel: zeros of each annotated tensor type, and scalars from SCALARS."""
    return e2e_programs.SCALARS.get(kernel.__name__, {})


@pytest.mark.parametrize("kernel", e2e_programs.PROGRAMS, ids=lambda k: k.__name__)
@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_manual_example_lowers_to_placed_tile_kernels(kernel, platform):
    lowered = kernel.lower(**_sample(kernel), config=RunConfig(pipeline=VERIFIED, platform=platform))
    assert kernels(lowered), "every example has at least one kernel"
    assert problems(lowered, platform) == []


@pytest.mark.parametrize("cls", programs.PROGRAMS, ids=lambda c: c.__name__)
def test_pipeline_is_stable_on_front_end_programs(cls):
    lowered = _lower(pl.program(cls))
    again = _lower(lowered)
    ir.assert_structural_equal(again, lowered, enable_auto_mapping=True)


@pytest.mark.parametrize("kernel", e2e_programs.PROGRAMS, ids=lambda k: k.__name__)
def test_pipeline_is_stable(kernel):
    lowered = kernel.lower(**_sample(kernel), config=RunConfig(pipeline=PIPELINE))
    again = passes.PassManager(PIPELINE).run(lowered, verify=True)
    ir.assert_structural_equal(again, lowered, enable_auto_mapping=True)


def test_big_tensor_chain_becomes_a_tiled_loop():
    lowered = e2e_programs.big_chain.lower(config=RunConfig(pipeline=PIPELINE))
    (kernel,) = kernels(lowered)
    loops = [s for s in _stmts(kernel.body) if isinstance(s, ir.ForStmt)]
    assert len(loops) == 1, ir.as_python(lowered)
    rows_per_step = loops[0].step.value
    assert 0 < rows_per_step < 2048 and 2048 % rows_per_step == 0


def test_dump_passes_writes_one_readable_program_per_pass(tmp_path):
    config = RunConfig(pipeline=PIPELINE, dump_passes=True, save_kernels_dir=str(tmp_path))
    compiled = e2e_programs.softmax.compile(config=config)
    dumps = sorted(compiled.passes_dump_dir.iterdir())
    names = [p.name for p in dumps]
    assert names[0] == "00_input.py"
    assert [n.split("_", 1)[1].removesuffix(".py") for n in names[1:]] == passes.PassManager(PIPELINE).pass_names
    for dump in dumps:
        pl.parse(dump.read_text(), filename=str(dump))


def test_capacity_error_names_the_space_the_bytes_and_the_line():
    @pl.jit
    def too_big(a: pl.Tensor[[256, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0, 0], [256, 256])
            pl.store(pl.exp(t), [0, 0], out)
        return out

    with pytest.raises(pypto.Error) as info:
        too_big.lower(config=RunConfig(pipeline=PIPELINE))
    message = str(info.value)
    assert "Vec" in message and "188416" in message and "262144" in message
    assert f"{Path(__file__).name}:" in message


def _stmts(stmt):
    if isinstance(stmt, ir.SeqStmts):
        for s in stmt.stmts:
            yield from _stmts(s)
    else:
        yield stmt
