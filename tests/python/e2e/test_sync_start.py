"""pl.spmd(..., sync_start=True): the grid's blocks start together, the simulator has a cluster for each of them
whatever the machine's core count, and a grid larger than the platform's clusters is a compile error at its line."""

import json

import pytest
import torch

import pypto
import pypto.language as pl
from pypto.runtime import RunConfig

BLOCKS = 6  # more than this machine's cores in CI (2), fewer than a2a3's 24 clusters


@pl.jit
def rows_exp(x: pl.Tensor[[96, 64], pl.FP32], out: pl.Out[pl.Tensor[[96, 64], pl.FP32]]):
    with pl.spmd(BLOCKS, sync_start=True, name_hint="rows"):
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.tile.get_block_idx()
            t = pl.load(x, [b * 16, 0], [16, 64])
            out = pl.store(pl.exp(t), [b * 16, 0], out)
    return out


@pl.jit
def too_wide(x: pl.Tensor[[512, 64], pl.FP32], out: pl.Out[pl.Tensor[[512, 64], pl.FP32]]):
    with pl.spmd(32, sync_start=True, name_hint="rows"):
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.tile.get_block_idx()
            t = pl.load(x, [b * 16, 0], [16, 64])
            out = pl.store(pl.exp(t), [b * 16, 0], out)
    return out


def test_a_sync_start_grid_computes_what_torch_does():
    x, out = torch.randn(96, 64), torch.zeros(96, 64)
    rows_exp(x, out)
    torch.testing.assert_close(out, torch.exp(x))


def test_the_orchestration_records_its_largest_sync_start_grid(tmp_path):
    x, out = torch.randn(96, 64), torch.zeros(96, 64)
    compiled = rows_exp.compile(x, out, config=RunConfig(save_kernels_dir=str(tmp_path / "out")))
    module = (compiled.output_dir / "orchestration" / "rows_exp.ll").read_text()
    assert f"@pypto_sync_start_blocks_rows_exp = constant i32 {BLOCKS}" in module
    assert "call i32 @pypto_rt_args_set_sync_start(" in module


def test_the_simulator_runs_the_program_on_a_cluster_per_block():
    """Blocks that wait for each other need them all running (tests/cpp/runtime/scheduler_test.cpp shows the
    scheduler holds the grid back until then); the chip must have that many clusters, even on two cores."""
    x, out = torch.randn(96, 64), torch.zeros(96, 64)
    config = RunConfig(enable_chip_swimlane=1)
    rows_exp(x, out, config=config)
    swimlane = json.loads((rows_exp.compile(x, out, config=config).dfx_dir / "chip_swimlane.json").read_text())
    assert swimlane["otherData"]["clusters"] >= BLOCKS, swimlane["otherData"]
    assert len([e for e in swimlane["traceEvents"] if e.get("cat") == "kernel"]) == BLOCKS
    torch.testing.assert_close(out, torch.exp(x))


def test_a_grid_wider_than_the_platform_is_a_compile_error_at_its_line():
    x, out = torch.randn(512, 64), torch.zeros(512, 64)
    with pytest.raises(pypto.Error) as caught:
        too_wide.compile(x, out)
    message = str(caught.value)
    assert "sync_start=True starts all 32 blocks at once" in message
    assert "platform 'a2a3sim' has 24 clusters; use at most 24 blocks or drop sync_start" in message
    spmd_line = next(n for n, line in enumerate(open(__file__), 1) if "pl.spmd(32, sync_start=True" in line)
    assert f"test_sync_start.py:{spmd_line}" in message
