"""Tasks that read a tensor a later task overwrites (WAR) and tasks that write the same rows in order (WAW)
give the sequential result on every run."""

import pytest
import torch

import pypto.language as pl
from pypto.runtime import RunConfig

CONFIG = RunConfig(platform="a2a3sim")
RUNS = 50


@pl.jit
def war_and_waw(x: pl.Tensor[[64, 64], pl.FP32], snap: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    stage = pl.create_tensor([64, 64], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP):
        stage[:] = pl.exp(x)
    for r in pl.range(0, 64, 16):  # four readers of stage ...
        with pl.at(level=pl.Level.CORE_GROUP):
            snap[r:r + 16, :] = pl.add(stage[r:r + 16, :], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP):  # ... before this task overwrites it (WAR)
        stage[:] = pl.mul(x, 2.0)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[:] = pl.add(stage, x)
    with pl.at(level=pl.Level.CORE_GROUP):  # the same rows again, after the task above (WAW)
        out[0:16, :] = pl.mul(stage[0:16, :], 3.0)
    return snap, out


@pytest.fixture(autouse=True)
def build_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    war_and_waw.clear_cache()


def test_war_and_waw_between_tasks_give_the_sequential_result_every_run():
    x = torch.randn(64, 64)
    expected_snap = torch.exp(x) + 1
    expected_out = 3 * x
    expected_out[0:16] = 6 * x[0:16]
    compiled = war_and_waw.compile(x, torch.empty(64, 64), torch.empty(64, 64), config=CONFIG)
    first_snap = first_out = None
    for run in range(RUNS):
        snap, out = torch.full((64, 64), float("nan")), torch.full((64, 64), float("nan"))
        compiled(x, snap, out)
        if first_snap is None:
            first_snap, first_out = snap, out
            torch.testing.assert_close(snap, expected_snap, rtol=1e-5, atol=1e-5)
            torch.testing.assert_close(out, expected_out, rtol=1e-6, atol=1e-6)
        assert torch.equal(snap, first_snap) and torch.equal(out, first_out), f"run {run} differs from run 0"
