"""Real @pl.jit kernels through the real front end."""

import pytest
import torch
from pipeline.lowering_checks import kernels, problems

import pypto.language as pl
from pypto import ir
from pypto.debug import load_torch_script, torch_codegen
from pypto.jit import JITFunction
from pypto.runtime import RunConfig

ROWS = pl.dynamic("ROWS")


@pl.jit.incore
def add_kernel(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    out = pl.assemble(out, pl.add(a, b), [0, 0])
    return out


@pl.jit
def add(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    return add_kernel(a, b, out)


@pl.jit
def accumulate(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(a, a)
        for i in pl.range(n):
            t = pl.add(t, a)
        out = pl.assemble(out, pl.mul(t, t), [0, 0])
    return out


@pl.jit.incore
def scale_rows(x: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):
    t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
    out = pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


@pl.jit.incore
def double_and_square(a: pl.Tensor[[16, 64], pl.FP32], twice: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                      squared: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    t = pl.load(a, [0, 0], [16, 64])
    pl.store(pl.add(t, t), [0, 0], twice)
    pl.store(pl.mul(t, t), [0, 0], squared)
    return twice, squared


@pl.jit
def double_and_square_entry(a: pl.Tensor[[16, 64], pl.FP32], twice: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                            squared: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    return double_and_square(a, twice, squared)


@pytest.fixture(autouse=True)
def fresh_caches(build_dir):
    for kernel in (add, accumulate, scale_rows, double_and_square_entry):
        kernel.clear_cache()


def test_pl_jit_is_the_jit_decorator():
    assert isinstance(add, JITFunction) and add.kind == "orchestration"
    assert add_kernel.kind == "incore"


def test_a_fully_annotated_entry_compiles_without_arguments():
    compiled = add.compile(config=RunConfig(dump_passes=True))
    assert sorted(f.name for f in compiled.program.functions) == ["add", "add_kernel"]
    assert compiled.program.name == "_jit_add"
    assert not [d for d in ir.verify(compiled.program) if d.is_error]
    assert (compiled.passes_dump_dir).is_dir()
    x = torch.zeros(128, 128)
    assert add.compile(x, x, x, config=RunConfig()) is compiled


def test_shapes_come_from_the_arguments_and_scalars_are_folded():
    a = torch.zeros(64, 64)
    program = accumulate.lower(a, a, 3, config=RunConfig())
    text = ir.as_python(program, concise=True)
    assert "pl.range(0, 3, 1" in text
    assert "pl.Tensor[[64, 64], pl.FP32]" in text
    other = ir.as_python(accumulate.lower(torch.zeros(32, 64), torch.zeros(32, 64), 3, config=RunConfig()))
    assert "pl.Tensor[[32, 64], pl.FP32]" in other
    assert accumulate.cache_info() == (0, 0, 0)  # lower() does not cache


def test_cache_hits_misses_and_dynamic_dimensions():
    small, large = torch.zeros(64, 64), torch.zeros(256, 64)
    scale_rows.compile(small, small, config=RunConfig())
    scale_rows.compile(large, large, config=RunConfig())
    assert scale_rows.cache_info() == (1, 1, 1)
    a = torch.zeros(64, 64)
    accumulate.compile(a, a, 2, config=RunConfig())
    accumulate.compile(a, a, 2, config=RunConfig())
    accumulate.compile(a, a, 4, config=RunConfig())
    accumulate.compile(torch.zeros(32, 64), torch.zeros(32, 64), 2, config=RunConfig())
    assert accumulate.cache_info() == (1, 3, 3)


def test_the_default_pipeline_lowers_a_real_kernel():
    """lower() gives the fully lowered program (tile ops only, every tile placed, every dispatch directed), and that
    program still computes the kernel: its torch script against torch on the same input."""
    a = torch.randn(64, 64)
    program = accumulate.lower(a, a, 2)
    assert not [d for d in ir.verify(program) if d.is_error]
    assert kernels(program) and not problems(program)
    out = torch.zeros(64, 64)
    load_torch_script(torch_codegen(program)).ENTRY(a, out)
    torch.testing.assert_close(out, (4 * a) ** 2)  # t = a + a, plus a twice: 4a; out = t * t


def test_calling_a_real_kernel_runs_it():
    x, y, out = torch.ones(128, 128), torch.full((128, 128), 2.0), torch.zeros(128, 128)
    assert add(x, y, out, config=RunConfig()) is out
    assert bool((out == 3).all())


def test_returning_a_kernel_call_returns_each_of_its_results():
    a, twice, squared = torch.randn(16, 64), torch.zeros(16, 64), torch.zeros(16, 64)
    result = double_and_square_entry(a, twice, squared, config=RunConfig())
    assert isinstance(result, tuple) and result[0] is twice and result[1] is squared
    torch.testing.assert_close(twice, a + a)
    torch.testing.assert_close(squared, a * a)


def test_dtype_errors_come_before_parsing():
    x = torch.zeros(128, 128, dtype=torch.float16)
    with pytest.raises(TypeError, match=r"parameter 'a' expects dtype FP32"):
        add(x, x, x, config=RunConfig())
