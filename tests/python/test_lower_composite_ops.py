"""tile.sin and tile.cos, which PTO-ISA has no instruction for, computed by LowerCompositeOps on the simulators."""

import importlib.util
import math
import re
import textwrap
from pathlib import Path

import pytest
import torch
import yaml

import pypto
import pypto.language as pl
from pypto.runtime import RunConfig

PIPELINES = Path(__file__).resolve().parents[2] / "pipelines"


@pl.jit
def sin_and_cos(x: pl.Tensor[[64, 64], pl.FP32], s: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [64, 64])
        s = pl.store(pl.tile.sin(t), [0, 0], s)
        c = pl.store(pl.tile.cos(t), [0, 0], c)
    return s, c


@pl.jit
def tensor_sin(x: pl.Tensor[[32, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.sin(x)
    return out


def _wide_inputs() -> torch.Tensor:
    """Uniform over |x| < 4096 pi, where the reduction is exact, plus the multiples of pi/2 and their neighbours."""
    generator = torch.Generator().manual_seed(7)
    x = (torch.rand(64, 64, generator=generator) * 2 - 1) * 12800
    near = torch.arange(-682, 683, dtype=torch.float64) * 6 * (math.pi / 2)
    near = near.float()
    flat = x.view(-1)
    flat[:near.numel()] = near
    flat[near.numel():2 * near.numel()] = torch.nextafter(near, torch.full_like(near, math.inf))
    flat[2 * near.numel():3 * near.numel()] = torch.nextafter(near, torch.full_like(near, -math.inf))
    flat[-4:] = torch.tensor([0.0, -0.0, 1e-30, 3.0])
    return x


@pytest.mark.parametrize("platform", ["a2a3sim", "a5sim"])
def test_fp32_sine_and_cosine_are_within_a_few_units_in_the_last_place(platform):
    x = _wide_inputs()
    s, c = torch.zeros_like(x), torch.zeros_like(x)
    sin_and_cos(x, s, c, config=RunConfig(platform=platform))
    # 2.4e-7 is 4 units in the last place of results in [1/2, 1).
    torch.testing.assert_close(s.double(), torch.sin(x.double()), rtol=0, atol=2.4e-7)
    torch.testing.assert_close(c.double(), torch.cos(x.double()), rtol=0, atol=2.4e-7)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_computes_in_fp32_and_rounds_once(tmp_path, dtype):
    name = "FP16" if dtype == torch.float16 else "BF16"
    module = _tile_kernel("cos", 16, 64, name, "half_cos", tmp_path)
    x = (torch.rand(16, 64, generator=torch.Generator().manual_seed(3)) * 200 - 100).to(dtype)
    out = torch.zeros_like(x)
    module.kernel(x, out)
    # FP32's error is far below half a unit of FP16/BF16: one rounding, at most one unit off a correctly rounded cos.
    exact = torch.cos(x.double())
    unit = (exact.to(dtype).double() - torch.nextafter(exact.to(dtype), torch.zeros_like(x)).double()).abs()
    assert bool(((out.double() - exact).abs() <= unit.clamp(min=2 ** -24)).all())


def test_a_tensor_sine_is_converted_then_lowered():
    x = torch.linspace(-20, 20, 32 * 64).reshape(32, 64).half()
    out = torch.zeros_like(x)
    compiled = tensor_sin.compile(x, out)
    kernel = "".join(p.read_text() for p in compiled.kernel_files)
    assert "TSIN" not in kernel
    for instruction in ("TMULS", "TCVT", "TANDS", "TSUB", "TMUL", "TADDS"):
        assert instruction in kernel
    tensor_sin(x, out)
    torch.testing.assert_close(out, torch.sin(x.float()).half(), rtol=0, atol=1e-3)


def _tile_kernel(op: str, rows: int, cols: int, dtype: str, name: str, folder: Path):
    """A module whose @pl.jit `kernel(x, out)` stores pl.tile.<op> of x, loaded whole, written as a user would."""
    source = textwrap.dedent(f"""
        import pypto.language as pl

        @pl.jit
        def kernel(x: pl.Tensor[[{rows}, {cols}], pl.{dtype}], out: pl.Out[pl.Tensor[[{rows}, {cols}], pl.{dtype}]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [{rows}, {cols}])
                out = pl.store(pl.tile.{op}(t), [0, 0], out)
            return out
        """)
    return _module(source, name, folder)


def _module(source: str, name: str, folder: Path):
    path = folder / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_without_the_pass_the_npu_backend_says_to_run_it(tmp_path):
    default = yaml.safe_load((PIPELINES / "default.yaml").read_text())
    default["name"] = "no_composite"
    default["passes"] = [p for p in default["passes"] if p != "LowerCompositeOps"]
    pipeline = tmp_path / "no_composite.yaml"
    pipeline.write_text(yaml.safe_dump(default))
    module = _tile_kernel("sin", 16, 64, "FP32", "unlowered_sin", tmp_path)
    x = torch.zeros(16, 64)
    with pytest.raises(pypto.Error, match=re.escape("PTO-ISA has no sine or cosine instruction")) as info:
        module.kernel(x, x.clone(), config=RunConfig(pipeline=str(pipeline)))
    assert "LowerCompositeOps" in str(info.value)
    assert "unlowered_sin.py:8" in str(info.value)


@pl.jit
def large_tensor_cos(x: pl.Tensor[[256, 256], pl.FP32], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.cos(x)
    return out


def test_the_tiling_of_a_tensor_chain_counts_the_temporaries():
    # Two 64 x 256 FP32 blocks would fit a2a3's Vec; with the three temporaries they would not.
    x = torch.randn(256, 256)
    out = torch.zeros_like(x)
    large_tensor_cos(x, out)
    torch.testing.assert_close(out.double(), torch.cos(x.double()), rtol=0, atol=2.4e-7)


def test_a_tile_too_large_for_its_temporaries_is_refused_with_the_bytes(tmp_path):
    module = _tile_kernel("sin", 128, 128, "FP32", "large_sin", tmp_path)
    x = torch.zeros(128, 128)
    with pytest.raises(pypto.Error, match="needs 196608 bytes of Vec but platform 'a2a3sim' has 188416"):
        module.kernel(x, x.clone())
