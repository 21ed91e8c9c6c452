"""A @pl.jit kernel with a pl.pipeline loop and a cast lowers through LegalizeTileCast and LowerPipelineLoops."""

import re

import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig

@pl.jit
def narrow(x: pl.Tensor[[64, 64], pl.BF16], out: pl.Out[pl.Tensor[[64, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.pipeline(0, 4, 1, stage=2):
            t = pl.load(x, [i * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
            h = pl.cast(t, pl.FP16)
            out = pl.store(h, [i * 16, 0], out)
    return out


@pytest.fixture
def chain():
    # The default pipeline runs LegalizeTileCast and LowerPipelineLoops, with MemoryReuse after them.
    return "default"


def _kernel_text(program: ir.Program) -> str:
    kernels = [f for f in program.functions if f.func_type == ir.FunctionType.InCore]
    assert len(kernels) == 1
    return ir.as_python(kernels[0])


def test_on_a2a3_the_cast_goes_through_fp32_in_each_of_two_stages(chain):
    program = narrow.lower(config=RunConfig(pipeline=chain, platform="a2a3sim"))
    assert not [d for d in ir.verify(program) if d.is_error]
    text = _kernel_text(program)
    assert "pl.pipeline" not in text
    assert re.search(r"pl\.range\(0, 4, 2, init_values=\(\w+,\), pipeline_stages=2\)", text)
    for stage in ("s0", "s1"):
        assert f"pl.tile.cast(t_{stage}, target_type=pl.FP32)" in text
        assert f"pl.tile.cast(h_fp32_{stage}, target_type=pl.FP16)" in text
    assert "pl.tile.load(x, [(i + 1) * 16, 0], [16, 64]" in text
    assert text.count("pl.tile.cast(") == 4


def test_on_a5_the_same_cast_is_one_instruction(chain):
    program = narrow.lower(config=RunConfig(pipeline=chain, platform="a5sim"))
    assert not [d for d in ir.verify(program) if d.is_error]
    text = _kernel_text(program)
    assert "pl.FP32" not in text
    assert "pl.tile.cast(t_s0, target_type=pl.FP16)" in text
    assert "pl.tile.cast(t_s1, target_type=pl.FP16)" in text
    assert text.count("pl.tile.cast(") == 2


def test_the_stage_copies_keep_separate_buffers(chain):
    program = narrow.lower(config=RunConfig(pipeline=chain, platform="a2a3sim"))
    text = _kernel_text(program)
    buffers = {}
    for stage in ("s0", "s1"):
        match = re.search(rf"\bt_{stage}: pl\.Tile\[\[16, 64\], pl\.BF16, pl\.MemRef\(\"(\w+)\"", text)
        assert match, text
        buffers[stage] = match.group(1)
    assert buffers["s0"] != buffers["s1"], text
