"""The per-kernel cache, lower(), compile() and calls through the cache."""

import os

import fake_pl as pl
import numpy as np
import pytest
import torch
from jit_testing import config

import pypto
from pypto import ir
from pypto.jit import CompiledProgram, jit

M = pl.dynamic("M")


def make_kernels():
    """Fresh kernels (fresh caches) for each test."""

    @jit.incore
    def tile_add(a: pl.Tensor, b: pl.Tensor):
        return a

    @jit
    def add(a: pl.Tensor, b: pl.Tensor, out: pl.Out[pl.Tensor]):
        return tile_add(a, b)

    @jit
    def dyn(a: pl.Tensor[[M, 32], pl.FP32], out: pl.Out[pl.Tensor[[M, 32], pl.FP32]]):
        return out

    return add, dyn


def files_under(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*")) if path.exists() else []


def test_same_shapes_reuse_new_shapes_recompile(parser):
    add, _ = make_kernels()
    x = torch.zeros(16, 16)
    first = add.compile(x, x, x, config=config())
    assert add.cache_info() == (0, 1, 1)
    assert add.compile(torch.ones(16, 16), x, x, config=config()) is first
    assert add.cache_info() == (1, 1, 1)
    assert len(parser.calls) == 1
    y = torch.zeros(32, 16)
    second = add.compile(y, y, y, config=config())
    assert second is not first
    assert add.cache_info().misses == 2 and add.cache_info().currsize == 2
    assert len(parser.calls) == 2


def test_a_new_dtype_recompiles(parser):
    add, _ = make_kernels()
    x, h = torch.zeros(8, 8), torch.zeros(8, 8, dtype=torch.float16)
    add.compile(x, x, x, config=config())
    add.compile(h, h, h, config=config())
    assert add.cache_info() == (0, 2, 2)


def test_dynamic_dims_do_not_recompile(parser):
    _, dyn = make_kernels()
    for rows in (64, 128, 200):
        t = torch.zeros(rows, 32)
        dyn.compile(t, t, config=config())
    assert dyn.cache_info() == (2, 1, 1)
    assert len(parser.calls) == 1
    (call,) = parser.calls
    assert isinstance(call.param_types["a"].shape[0], ir.Var)


def test_a_compile_option_recompiles_a_dump_option_does_not(parser):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    add.compile(x, x, x, config=config())
    add.compile(x, x, x, config=config(dump_passes=True))
    assert add.cache_info() == (1, 1, 1)
    add.compile(x, x, x, config=config(platform="a5sim"))
    assert add.cache_info() == (1, 2, 2)


def test_clear_cache_forgets_everything(parser):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    add.compile(x, x, x, config=config())
    add.compile(x, x, x, config=config())
    add.clear_cache()
    assert add.cache_info() == (0, 0, 0)
    add.compile(x, x, x, config=config())
    assert add.cache_info() == (0, 1, 1)


def test_the_parser_gets_the_contract_arguments(parser):
    add, _ = make_kernels()
    x = torch.zeros(4, 4, dtype=torch.int32)
    add.compile(x, x, x, config=config())
    (call,) = parser.calls
    assert call.entry is add
    assert call.program_name == "_jit_add"
    assert set(call.param_types) == {"a", "b", "out"}
    assert ir.structural_equal(call.param_types["out"], ir.TensorType([4, 4], ir.DataType.INT32))
    assert call.scalar_values == {}


def test_lower_returns_the_post_pass_program_and_writes_nothing(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    lowered = add.lower(x, x, x, config=config(dump_passes=True))
    assert isinstance(lowered, ir.Program)
    assert lowered.name == "_jit_add"
    assert files_under(build_dir) == []
    assert files_under(build_dir.parent / "work") == []
    assert add.cache_info() == (0, 0, 0)


def test_lower_runs_the_default_pipeline_without_a_config(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    assert "waste" in ir.as_python(add.lower(x, x, x, config=config()))
    assert "waste" not in ir.as_python(add.lower(x, x, x))  # Simplify removed the dead binding
    assert files_under(build_dir) == []


def test_compile_creates_a_timestamped_output_dir_and_dumps_passes_when_asked(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    compiled = add.compile(x, x, x, config=config(dump_passes=True))
    assert isinstance(compiled, CompiledProgram)
    assert compiled.output_dir.parent == build_dir
    assert compiled.output_dir.name.startswith("_jit_add_")
    stamp = compiled.output_dir.name.removeprefix("_jit_add_")
    assert len(stamp) == 15 and stamp[8] == "_" and stamp.replace("_", "").isdigit()
    dumps = sorted(os.listdir(compiled.passes_dump_dir))
    assert dumps[0].startswith("00_")
    assert "_jit_add" in (compiled.passes_dump_dir / dumps[0]).read_text()
    assert compiled.platform == "a2a3sim"
    assert compiled.param_names == ("a", "b", "out")
    assert compiled.can_run and (compiled.output_dir / "orchestration" / "add.ll").is_file()
    assert compiled.program.name == "_jit_add"


def test_compile_without_dump_passes_writes_no_dump(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    compiled = add.compile(x, x, x, config=config())
    assert compiled.output_dir.is_dir()
    assert not compiled.passes_dump_dir.exists()


def test_compile_without_config_dumps_like_ir_compile(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    assert add.compile(x, x, x).passes_dump_dir.is_dir()


def test_two_compiles_in_one_second_get_two_directories(parser, build_dir):
    add, _ = make_kernels()
    a, b = torch.zeros(8, 8), torch.zeros(4, 4)
    first = add.compile(a, a, a, config=config()).output_dir
    second = add.compile(b, b, b, config=config()).output_dir
    assert first != second and first.is_dir() and second.is_dir()


def test_build_output_is_the_default_root(parser, monkeypatch, tmp_path):
    monkeypatch.delenv("PYPTO_PROG_BUILD_DIR")
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    compiled = add.compile(x, x, x, config=config())
    assert compiled.output_dir.parent.resolve() == (tmp_path / "work" / "build_output").resolve()


def test_save_kernels_dir_is_the_output_dir(parser, tmp_path):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    target = tmp_path / "kept"
    assert add.compile(x, x, x, config=config(save_kernels_dir=str(target))).output_dir == target


def test_compile_takes_no_arguments_when_fully_annotated(parser):
    _, dyn = make_kernels()
    compiled = dyn.compile(config=config())
    assert compiled.key.as_dict()["tensors"]["a"]["shape"] == (None, 32)
    dyn.compile(torch.zeros(7, 32), torch.zeros(7, 32), config=config())
    assert dyn.cache_info() == (1, 1, 1)


def test_compile_without_samples_names_the_parameter_that_needs_one(parser):
    add, _ = make_kernels()
    with pytest.raises(TypeError, match=r"compile\(\) needs a sample tensor for parameter 'a': its annotation "
                                        r"pl.Tensor gives no shape and dtype"):
        add.compile()


def test_compile_without_a_scalar_value_says_scalars_are_constants(parser):
    @jit
    def scaled(a: pl.Tensor[[4], pl.FP32], alpha: pl.Scalar[pl.FP32], extra):
        return a

    with pytest.raises(TypeError, match=r"needs a scalar value for parameter 'alpha': scalars are specialization"):
        scaled.compile(config=config())
    with pytest.raises(TypeError, match=r"needs a sample tensor for parameter 'extra': it has no annotation"):
        scaled.compile(alpha=1.0, config=config())
    assert scaled.compile(alpha=1.0, extra=torch.zeros(2), config=config()).key.as_dict()["scalars"] == {"alpha": 1.0}


def test_calls_compile_once_per_specialization_and_run(parser, build_dir):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    assert add(x, x, x, config=config(dump_passes=True)) is None  # the fake entry returns nothing
    assert add.cache_info() == (0, 1, 1)
    add(x, x, x, config=config(platform="a5sim"))
    add(x, x, x, config=config())
    assert add.cache_info() == (1, 2, 2)


def test_the_compiled_program_is_callable_with_the_kernels_arguments(parser):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    compiled = add.compile(x, x, x, config=config())
    assert compiled.can_run and compiled.entry == "add"
    assert compiled(x, x, x) is None
    with pytest.raises(TypeError, match=r"add\(\) takes 3 arguments \(a, b, out\), got 4"):
        compiled(x, x, x, x)


def test_config_must_be_a_run_config(parser):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    with pytest.raises(TypeError, match="config must be a pypto.runtime.RunConfig, got dict"):
        add.compile(x, x, x, config={"platform": "a5sim"})


def test_numpy_arrays_compile_and_share_the_cache_with_torch(parser):
    add, _ = make_kernels()
    x = np.zeros((8, 8), dtype=np.float32)
    compiled = add.compile(x, x, x, config=config())
    assert add.compile(torch.zeros(8, 8), torch.zeros(8, 8), torch.zeros(8, 8), config=config()) is compiled
    add(x, x, x, config=config())
    assert add.cache_info() == (2, 1, 1)


def test_dependencies_reach_the_parser_through_the_entry(parser):
    add, _ = make_kernels()
    x = torch.zeros(8, 8)
    program = add.lower(x, x, x, config=config())
    assert sorted(f.name for f in program.functions) == ["add", "tile_add"]
