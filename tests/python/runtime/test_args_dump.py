"""RunConfig(enable_dump_args=N): dfx_outputs/args_dump/{args_dump.json,args_dump.bin} hold tasks' tensor
arguments as the runtime bound them; level 1 only those viewing a tensor tagged with pl.dump_tag."""

import json
import subprocess
import sys

import numpy as np
import pytest
import torch

import pypto.language as pl
from pypto.runtime import RunConfig, args_dump


@pl.jit
def two_stages(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    stage = pl.create_tensor([64, 64], pl.FP32)
    pl.dump_tag(stage)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="exp_all"):
        stage[:] = pl.exp(x)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_back"):
        y[:] = pl.add(stage, x)
    return y


@pl.jit
def row_halves(x: pl.Tensor[[64, 32], pl.FP16], y: pl.Out[pl.Tensor[[64, 32], pl.FP16]]):
    for i in pl.parallel(0, 2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="neg_half"):
            y[i * 32:i * 32 + 32, :] = pl.neg(x[i * 32:i * 32 + 32, :])
    return y


@pytest.fixture(autouse=True)
def build_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    for kernel in (two_stages, row_halves):
        kernel.clear_cache()


def _two_stages(level):
    x, y = torch.randn(64, 64), torch.zeros(64, 64)
    config = RunConfig(enable_dump_args=level)
    two_stages(x, y, config=config)
    torch.testing.assert_close(y, torch.exp(x) + x)
    return x, y, two_stages.compile(x, y, config=config).dfx_dir / args_dump.ARGS_DUMP_DIR


def _by(records, **fields):
    return [r for r in records if all(getattr(r, k) == v for k, v in fields.items())]


def test_level_2_dumps_every_tensor_argument_before_and_after():
    x, y, folder = _two_stages(2)
    records = args_dump.load(folder)
    # exp_all: x before, stage after; add_back: stage and x before, y after.
    assert [(r.kernel, r.arg, r.when) for r in records] == [
        ("exp_all", 0, "before"), ("exp_all", 1, "after"),
        ("add_back", 0, "before"), ("add_back", 1, "before"), ("add_back", 2, "after")]
    by_kernel = {(r.kernel, r.when, r.arg): r.numpy() for r in records}
    np.testing.assert_array_equal(by_kernel[("exp_all", "before", 0)], x.numpy())
    stage = by_kernel[("exp_all", "after", 1)]
    np.testing.assert_allclose(stage, np.exp(x.numpy()), rtol=1e-6)
    # What add_back read of stage is what exp_all left there; what it wrote is the result.
    reads = [r.numpy() for r in _by(records, kernel="add_back", when="before")]
    assert sum(np.array_equal(read, stage) for read in reads) == 1
    assert sum(np.array_equal(read, x.numpy()) for read in reads) == 1
    np.testing.assert_array_equal(by_kernel[("add_back", "after", 2)], y.numpy())
    index = json.loads((folder / args_dump.INDEX_FILE).read_text())
    assert index["level"] == 2 and index["entry"] == "two_stages"
    assert sum(r["bytes"] for r in index["records"]) == (folder / args_dump.DATA_FILE).stat().st_size
    assert all(r["dtype"] == "FP32" and r["shape"] == [64, 64] for r in index["records"])


def test_level_1_dumps_only_the_tagged_tensor():
    _, _, folder = _two_stages(1)
    records = args_dump.load(folder)
    assert [(r.kernel, r.when) for r in records] == [("exp_all", "after"), ("add_back", "before")]
    assert len({r.tensor_id for r in records}) == 1
    np.testing.assert_array_equal(records[0].numpy(), records[1].numpy())


def test_true_means_level_1():
    assert RunConfig(enable_dump_args=True).enable_dump_args == 1


def test_each_task_dumps_what_it_saw_when_it_ran():
    x, y = torch.randn(64, 32).half(), torch.zeros(64, 32).half()
    config = RunConfig(enable_dump_args=2)
    row_halves(x, y, config=config)
    records = args_dump.load(row_halves.compile(x, y, config=config).dfx_dir / args_dump.ARGS_DUMP_DIR)
    outputs = _by(records, when="after")
    assert len(outputs) == 2 and all(r.dtype == "FP16" and r.shape == (64, 32) for r in outputs)
    # Iteration i's task writes rows [32 i, 32 i + 32) of y in place: its dump holds that half written (the
    # other half is whatever the other task, running alongside, had written by then).
    for half, record in enumerate(sorted(outputs, key=lambda r: int(r.task_id))):
        rows = slice(32 * half, 32 * half + 32)
        np.testing.assert_array_equal(record.numpy()[rows], -x[rows].numpy())


def test_the_viewer_lists_the_records_and_prints_one(tmp_path):
    _, _, folder = _two_stages(2)
    listed = subprocess.run([sys.executable, "-m", "pypto.runtime.args_dump", str(folder)], capture_output=True,
                            text=True)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert len(lines) == 5 and all("nan 0" in line for line in lines)
    assert "exp_all" in lines[0] and "FP32[64, 64]" in lines[0]
    task = args_dump.load(folder)[0].task_id
    one = subprocess.run([sys.executable, "-m", "pypto.runtime.args_dump", str(folder), "--task", task, "--arg", "0"],
                         capture_output=True, text=True)
    assert one.returncode == 0 and one.stdout.count("\n") > 2 and "[[" in one.stdout


def test_the_viewer_refuses_what_is_not_a_dump(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pypto.runtime.args_dump", str(tmp_path)], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "not an argument dump" in done.stderr and "Traceback" not in done.stderr


def test_without_the_flag_nothing_is_dumped():
    x, y = torch.randn(64, 64), torch.zeros(64, 64)
    config = RunConfig(enable_dep_gen=True)
    two_stages(x, y, config=config)
    folder = two_stages.compile(x, y, config=config).dfx_dir
    assert not (folder / args_dump.ARGS_DUMP_DIR).exists()
