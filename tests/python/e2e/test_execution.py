"""Compile and run on the simulator: output layout, in-place outputs, return values, faults, caching."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import torch

import pypto
import pypto.language as pl
from pypto.jit import CompiledProgram
from pypto.runtime import RunConfig

CONFIG = RunConfig(platform="a2a3sim")


@pl.jit
def add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [64, 64]), pl.load(b, [0, 0], [64, 64])), [0, 0], out)
    return out


@pl.jit
def scale(a: pl.Tensor[[64, 64], pl.FP32], factor: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.mul(pl.load(a, [0, 0], [64, 64]), factor), [0, 0], out)
    return out


@pl.jit
def copy_rows(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], rows: pl.Scalar[pl.INDEX]):
    for r in pl.range(0, rows, 32):  # rows=128 reads past the end of `a` at r=64
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(a, [r, 0], [32, 64]), [r, 0], out)
    return out


ROWS = pl.dynamic("ROWS")


@pl.jit.incore
def double_rows(x: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):
    for r in pl.range(0, pl.tensor.dim(x, 0), 16):
        t = pl.load(x, [r, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(pl.mul(t, 2.0), [r, 0], out)
    return out


@pl.jit
def row_blocks_matmul(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                      out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    for i in pl.range(0, 4):
        with pl.at(level=pl.Level.CORE_GROUP):
            out[i * 16:i * 16 + 16, :] = pl.matmul(a[i * 16:i * 16 + 16, :], b, out_dtype=pl.FP32)
    return out


@pytest.fixture(autouse=True)
def build_root(tmp_path, monkeypatch):
    """A fresh output root, and kernels that compile again into it."""
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    for kernel in (add, scale, copy_rows, double_rows):
        kernel.clear_cache()
    return tmp_path / "build_output"


def test_a_call_writes_the_out_argument_in_place_and_returns_it():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    result = add(a, b, out, config=CONFIG)
    assert result is out
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_numpy_arguments_work_too():
    a, b, out = np.ones((64, 64), np.float32), np.full((64, 64), 2, np.float32), np.zeros((64, 64), np.float32)
    add(a, b, out, config=CONFIG)
    assert (out == 3).all()


def test_non_contiguous_views_are_read_through_their_strides():
    big = torch.randn(64, 128)
    a = big[:, ::2]
    out = torch.zeros(64, 64)
    add(a, a, out, config=CONFIG)
    torch.testing.assert_close(out, a + a, rtol=0, atol=0)


def test_compile_writes_the_output_layout(build_root):
    a = torch.zeros(64, 64)
    compiled = add.compile(a, a, a, config=CONFIG)
    root = compiled.output_dir
    assert root.parent == build_root
    assert [p.relative_to(root).as_posix() for p in compiled.kernel_files] == ["kernels/aiv/add_incore_0.cpp"]
    assert [p.relative_to(root).as_posix() for p in compiled.orchestration_files] == ["orchestration/add.ll"]
    kernel = compiled.kernel_files[0].read_text()
    assert "TLOAD" in kernel and "TADD" in kernel and "TSTORE" in kernel
    assert "define i32 @pypto_orchestration_add" in compiled.orchestration_files[0].read_text()
    assert (root / "report" / "perf_hints.log").is_file()
    assert (root / "debug" / "run.py").is_file()
    meta = json.loads((root / "compiled_meta.json").read_text())
    assert meta["entry"] == "add" and [p["name"] for p in meta["params"]] == ["a", "b", "out"]


def test_scalars_are_specialization_constants():
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    scale(a, 2.5, out, config=CONFIG)
    torch.testing.assert_close(out, a * 2.5)
    scale(a, -1.0, out, config=CONFIG)
    torch.testing.assert_close(out, -a)
    assert scale.cache_info().currsize == 2


def test_a_kernel_fault_is_an_exception_at_the_users_line_and_the_next_call_works():
    a, out = torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(pypto.KernelFault) as info:
        copy_rows(a, out, 128, config=CONFIG)
    message = str(info.value)
    assert "faulted in TLOAD" in message
    assert "test_execution.py:40" in message
    assert info.value.filename.endswith("test_execution.py") and info.value.lineno == 40
    assert isinstance(info.value, RuntimeError)
    copy_rows(a, out, 64, config=CONFIG)
    torch.testing.assert_close(out, a, rtol=0, atol=0)


def test_an_incore_entry_runs_as_one_task_with_dynamic_rows():
    for rows in (32, 80):
        x, out = torch.randn(rows, 64), torch.zeros(rows, 64)
        assert double_rows(x, out, config=CONFIG) is out
        torch.testing.assert_close(out, 2 * x, rtol=0, atol=0)
    assert double_rows.cache_info().currsize == 1


def test_from_dir_runs_the_folder_again(build_root):
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    compiled = add.compile(a, b, out, config=CONFIG)
    again = CompiledProgram.from_dir(compiled.output_dir)
    again(a, b, out)
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_debug_run_py_reruns_the_program_on_the_saved_inputs(build_root):
    a, b, out = torch.ones(64, 64), torch.ones(64, 64), torch.zeros(64, 64)
    add(a, b, out, config=CONFIG)
    compiled = add.compile(a, b, out, config=CONFIG)
    done = subprocess.run([sys.executable, str(compiled.output_dir / "debug" / "run.py")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "with saved inputs" in done.stdout
    assert "out (Out): shape [64, 64], sum 8192" in done.stdout


def test_a_hardware_platform_writes_artifacts_and_says_what_running_needs():
    a = torch.zeros(64, 64)
    compiled = add.compile(a, a, a, config=RunConfig(platform="a2a3"))
    assert compiled.kernel_files and not compiled.can_run
    with pytest.raises(pypto.KernelFault, match="Ascend CANN toolchain"):
        add(a, a, a, config=RunConfig(platform="a2a3"))


def test_default_run_config_is_the_simulator():
    assert RunConfig().platform == "a2a3sim"


SECOND_PROCESS = textwrap.dedent('''
    import sys, torch
    sys.path.insert(0, {here!r})
    from test_execution import add, CONFIG
    a = torch.ones(64, 64); out = torch.zeros(64, 64)
    compiled = add.compile(a, a, out, config=CONFIG)
    add(a, a, out, config=CONFIG)
    assert (out == 2).all()
    stats = compiled.executable.build_stats
    print(stats.kernels, stats.from_cache)
''')


def test_a_second_process_compiles_nothing(tmp_path):
    env = dict(os.environ, PYPTO_CACHE_DIR=str(tmp_path / "cache"), PYPTO_PROG_BUILD_DIR=str(tmp_path / "out"))
    script = SECOND_PROCESS.format(here=str(Path(__file__).parent))
    first = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    second = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.split() == ["1", "0"]
    assert second.stdout.split() == ["1", "1"]


def test_a_corrupt_cache_entry_is_rebuilt_not_loaded(tmp_path):
    env = dict(os.environ, PYPTO_CACHE_DIR=str(tmp_path / "cache"), PYPTO_PROG_BUILD_DIR=str(tmp_path / "out"))
    script = SECOND_PROCESS.format(here=str(Path(__file__).parent))
    assert subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=300).returncode == 0
    entries = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[: len(entry.read_bytes()) // 2])
    again = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert again.stdout.split() == ["1", "0"]


def test_repeated_calls_take_the_dispatch_fast_path_and_count_as_hits():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    for _ in range(3):
        add(a, b, out, config=CONFIG)
    assert add.cache_info() == (2, 1, 1)
    strided = torch.randn(64, 128)[:, ::2]  # same shape and dtype, other strides: checked again, same program
    add(strided, b, out, config=CONFIG)
    torch.testing.assert_close(out, strided + b, rtol=0, atol=0)
    assert add.cache_info().currsize == 1


def test_a_window_spelled_start_to_start_plus_16_has_a_static_extent():
    a, b, out = torch.randn(64, 64).half(), torch.randn(64, 64).half(), torch.zeros(64, 64)
    row_blocks_matmul(a, b, out, config=CONFIG)
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-3, atol=1e-3)


def test_the_executable_takes_arrays_as_they_are_and_hands_back_the_argument_objects():
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    compiled = add.compile(a, b, out, config=CONFIG)
    results = compiled.executable.run(compiled.entry, [a, b, out])
    assert len(results) == 1 and results[0] is out
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    from pypto._core.runtime import Tensor as RuntimeTensor

    wrapped = RuntimeTensor(out)
    assert compiled.executable.run(compiled.entry, [np.ones((64, 64), np.float32), b, wrapped])[0] is wrapped
    torch.testing.assert_close(out, 1 + b, rtol=0, atol=0)


def test_a_torch_argument_can_be_dropped_right_after_the_call():
    # Arguments are borrowed for the call only: the memory of temporaries may be reused at once.
    b = torch.randn(64, 64)
    for i in range(20):
        out = add(torch.full((64, 64), float(i)), b, torch.zeros(64, 64), config=CONFIG)
        torch.testing.assert_close(out, b + i, rtol=0, atol=0)


@pl.jit
def log_of(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [16, 64])
        pl.store(pl.log(t), [0, 0], out)  # LOG_LINE
    return out


LOG_LINE = next(i for i, line in enumerate(Path(__file__).read_text().splitlines(), 1) if line.endswith("# LOG_LINE"))


def test_check_nan_names_the_instruction_line_and_element_that_made_the_first_nan():
    a, out = torch.rand(16, 64) + 0.5, torch.zeros(16, 64)
    a[3, 17] = -1.0
    log_of(a, out, config=CONFIG)  # unchecked: the NaN lands in the output
    assert torch.isnan(out[3, 17]) and torch.isnan(out).sum() == 1
    with pytest.raises(pypto.KernelFault) as fault:
        log_of(a, out, config=RunConfig(check_nan=True))
    assert fault.value.lineno == LOG_LINE
    assert "TLOG" in str(fault.value) and "row 3, column 17" in str(fault.value)
    a[3, 17] = 2.0
    log_of(a, out, config=RunConfig(check_nan=True))  # the next call works
    torch.testing.assert_close(out, a.log())


def test_check_nan_reports_a_nan_in_the_input_at_its_load():
    a, out = torch.rand(16, 64) + 0.5, torch.zeros(16, 64)
    a[0, 9] = float("nan")
    with pytest.raises(pypto.KernelFault, match="TLOAD.*the tensor it reads holds a NaN .*row 0, column 9"):
        log_of(a, out, config=RunConfig(check_nan=True))


def test_check_nan_is_a_compile_option():
    assert RunConfig(check_nan=True).compile_key() != RunConfig().compile_key()
    with pytest.raises(TypeError, match="check_nan must be True or False"):
        RunConfig(check_nan="yes")
    a, out = torch.rand(16, 64) + 0.5, torch.zeros(16, 64)
    log_of.clear_cache()
    log_of(a, out, config=CONFIG)
    log_of(a, out, config=RunConfig(check_nan=True))
    assert log_of.cache_info().currsize == 2


@pl.jit
def exp_rows(x: pl.Tensor[[3, 37], pl.FP32], out: pl.Out[pl.Tensor[[3, 37], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.exp(pl.load(x, [0, 0], [3, 37])), [0, 0], out)
    return out


def test_simulated_exp_is_one_function_of_the_value_across_a_rows_full_and_partial_lane_groups():
    # A row of 37 goes through two 16-lane groups and a padded group of 5 (with AVX-512, the power of two is
    # VSCALEFPS): every copy of a value must give the same float, within 1 ulp of the exact exp.
    values = torch.tensor([float("inf"), float("-inf"), 0.0, 88.72, 88.73, -87.0, -100.0, -104.0, 20.5, -1.0, 1e-7])
    x = values.repeat(11)[:3 * 37].reshape(3, 37).contiguous()
    out = torch.empty(3, 37)
    exp_rows(x, out, config=CONFIG)
    for v in values:
        got = out[x == v]
        assert torch.equal(got, got[:1].expand_as(got)), f"exp({v.item()}) differs by position: {got.tolist()}"
    finite = torch.isfinite(x) & (x > -87.3) & (x < 88.7)
    exact = torch.exp(x.double())
    ulp = torch.ldexp(torch.ones_like(exact), torch.frexp(exact)[1] - 24)
    assert torch.all((out.double() - exact).abs()[finite] <= ulp[finite])
    assert out[x == float("inf")].eq(float("inf")).all() and out[x == 88.73].eq(float("inf")).all()
    assert out[x == float("-inf")].eq(0).all() and out[x == -104.0].eq(0).all()


@pl.jit
def ragged_matmul(a: pl.Tensor[[16, 24], pl.FP16], b: pl.Tensor[[24, 40], pl.FP16],
                  out: pl.Out[pl.Tensor[[16, 40], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    return out


def test_cube_tiles_hold_whole_fractal_blocks_with_the_operands_as_their_valid_region():
    a = torch.randn(16, 24).half()
    b = torch.randn(24, 40).half()
    out = torch.zeros(16, 40)
    compiled = ragged_matmul.compile(a, b, out, config=CONFIG)
    kernel = "".join(p.read_text() for p in compiled.kernel_files)
    # FP16 blocks: 16 x 16 in Left, Right and Acc alike; K = 24 and N = 40 round up to 32 and 48.
    assert "TileLeft<half, 16, 32, 16, 24>" in kernel
    assert "TileRight<half, 32, 48, 24, 40>" in kernel
    assert "TileAcc<float, 16, 48, 16, 40>" in kernel
    ragged_matmul(a, b, out, config=CONFIG)
    torch.testing.assert_close(out, a.float() @ b.float(), rtol=1e-5, atol=1e-5)
