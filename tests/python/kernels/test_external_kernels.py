"""Hand-written C++ kernels: the shipped kernel plugins against torch, both call styles, the errors, and
dependency ordering between an external kernel and DSL tasks (docs/external-kernels.md)."""

from __future__ import annotations

import torch
import pytest

import pypto
import pypto.kernels
import pypto.language as pl
from pypto.language.errors import ParseError

FIXTURES = "fixtures"


# ---------------------------------------------------------------- discovery
def test_the_shipped_kernels_are_discovered_with_their_signatures():
    kernels = {k["name"]: k for k in pypto.plugins.list_kernels()}
    gemm = kernels["gemm_fp16"]
    assert gemm["plugin"] == "gemm" and gemm["core"] == "AIC"
    assert gemm["source"].name == "gemm.cpp" and gemm["source"].is_file()
    assert [(t["name"], t["dtype"], t["shape"], t["direction"]) for t in gemm["tensors"]] == [
        ("a", "FP16", ["M", "K"], "In"), ("b", "FP16", ["K", "N"], "In"), ("c", "FP32", ["M", "N"], "Out")]
    assert gemm["multiple_of"] == {"M": 128, "N": 128, "K": 128}
    assert kernels["rmsnorm_fp32"]["scalars"] == [{"name": "eps", "dtype": "FP32"}]
    assert {"softmax_rows_fp32", "rmsnorm_fp32"} <= set(pypto.kernels.available())


def test_a_kernel_plugin_record_lists_its_kernels_as_what_it_provides():
    record = next(r for r in pypto.plugins.discover() if r["name"] == "softmax")
    assert record["kind"] == "kernel" and record["provides"] == ["softmax_rows_fp32"]
    assert pypto.plugins.load("softmax")["loaded"]


# ---------------------------------------------------------------- the shipped kernels vs torch
@pl.jit
def gemm(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pypto.kernels.gemm_fp16(a, b, c)
    return c


@pl.jit
def softmax(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.softmax_rows_fp32(x, out)
    return out


@pl.jit
def rmsnorm(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.rmsnorm_fp32(x, gamma, out, 1e-5)
    return out


@pytest.mark.parametrize("m,k,n", [(128, 128, 128), (256, 384, 128)])
def test_gemm_fp16_matches_torch(m, k, n):
    torch.manual_seed(0)
    a, b = torch.randn(m, k).half(), torch.randn(k, n).half()
    c = torch.full((m, n), float("nan"))
    gemm(a, b, c)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("rows,cols", [(64, 128), (100, 1000), (3, 4096)])
def test_softmax_rows_fp32_matches_torch(rows, cols):
    torch.manual_seed(1)
    x = torch.randn(rows, cols) * 4
    out = torch.full_like(x, float("nan"))
    softmax(x, out)
    torch.testing.assert_close(out, torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("rows,cols", [(64, 128), (37, 1000)])
def test_rmsnorm_fp32_matches_torch(rows, cols):
    torch.manual_seed(2)
    x, gamma = torch.randn(rows, cols), torch.randn(1, cols)
    out = torch.full_like(x, float("nan"))
    rmsnorm(x, gamma, out)
    expected = x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + 1e-5) * gamma
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)


def test_a_row_wider_than_the_kernel_tile_is_a_fault_naming_the_kernel():
    x = torch.randn(8, 4160)
    with pytest.raises(pypto.KernelFault, match=r"kernel 'softmax_rows_fp32'.*4160 is outside the tile's static "
                                                r"extent 4096"):
        softmax(x, torch.empty_like(x))


# ---------------------------------------------------------------- external_source=
@pl.jit.incore(external_source=f"{FIXTURES}/scale_add.cpp")
def scale_add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...


@pl.jit
def call_scale_add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                   out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    out = scale_add(a, b, out)
    return out


def test_an_external_source_function_runs_its_cpp_file_as_the_kernel():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    call_scale_add(a, b, out)
    torch.testing.assert_close(out, a * 2 + b)


def test_the_external_function_is_a_stub_returning_its_out_param_with_an_absolute_source():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    program = call_scale_add.lower(a, b, out)
    stub = program.get_function("scale_add")
    assert stub.attrs["external_source"].endswith("kernels/fixtures/scale_add.cpp")
    assert stub.attrs["external_source"].startswith("/")
    assert '"arg_directions": ["Input", "Input", "OutputExisting"]' in program.as_python()


def test_the_generated_kernel_file_includes_the_source_in_place():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.empty(64, 64)
    compiled = call_scale_add.compile(a, b, out)
    text = (compiled.output_dir / "kernels" / "aiv" / "scale_add.cpp").read_text()
    assert '#include "/' in text and 'kernels/fixtures/scale_add.cpp"' in text


# ---------------------------------------------------------------- dependency ordering
@pl.jit
def softmax_then_double(x: pl.Tensor[[64, 256], pl.FP32], probs: pl.Out[pl.Tensor[[64, 256], pl.FP32]],
                        out: pl.Out[pl.Tensor[[64, 256], pl.FP32]]):
    probs = pypto.kernels.softmax_rows_fp32(x, probs)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(probs, [0, 0], [64, 256])
        out = pl.store(pl.add(t, t), [0, 0], out)
    return out


def test_a_dsl_task_reading_what_an_external_kernel_wrote_runs_after_it():
    x = torch.randn(64, 256)
    for _ in range(5):
        probs, out = torch.zeros(64, 256), torch.full((64, 256), float("nan"))
        softmax_then_double(x, probs, out)
        torch.testing.assert_close(out, 2 * torch.softmax(x, dim=-1), rtol=1e-5, atol=1e-6)


def test_the_kernel_call_becomes_a_task_with_the_manifest_directions():
    x = torch.randn(64, 256)
    text = softmax_then_double.lower(x, torch.zeros(64, 256), torch.zeros(64, 256)).as_python()
    assert 'self.softmax_rows_fp32(x, probs, attrs={"arg_directions": ["Input", "OutputExisting"]})' in text
