"""The torch script models kernels split by hand (docs/mixed-kernels.md, "Splitting by hand"): a pl.split_aiv
region runs once per AIV lane, lane 0 then lane 1, with get_subblock_idx() the lane; tile.aiv_shard gives the lane's
part of a cube tile, cut as the pipe's split cuts it, and tile.aic_gather joins the lanes' values of a region's tile.
So bisect compares every stage, also those before ExpandMixedKernel, which still hold the regions.
"""

import numpy as np
import pytest
import torch
from mixed_programs import gather_columns, shard_rows

from pypto.debug import bisect, load_torch_script, torch_codegen
from pypto.runtime import RunConfig


def check_every_stage(kernel, tmp_path, expected, *args):
    """bisect runs the script of every stage (none skipped), no pass changes the outputs, the last script agrees
    with the simulator, and every stage's script computes `expected` (the last argument's final value)."""
    report = bisect(kernel, *args, config=RunConfig(platform="a2a3sim"), dump_dir=tmp_path, keep_stages=True)
    assert report.skipped == [], report.skipped
    assert report.ok, str(report)
    assert "ExpandMixedKernel" in report.stages
    for stage in sorted(report.stages_dir.glob("[0-9]*.npz")):
        got = torch.from_numpy(np.load(stage)["out"])
        torch.testing.assert_close(got, expected, rtol=1e-4, atol=1e-3, msg=lambda m: f"{stage.name}: {m}")
    assert len(list(report.stages_dir.glob("[0-9]*.npz"))) == len(report.stages)


def test_bisect_compares_every_stage_of_a_region_reading_its_rows_with_aiv_shard(tmp_path):
    torch.manual_seed(4)
    x, w, b = torch.randn(64, 128).half(), torch.randn(128, 64).half(), torch.randn(1, 64)
    check_every_stage(shard_rows, tmp_path, torch.relu(x.float() @ w.float() + b), x, w, b, torch.zeros(64, 64))


def test_bisect_compares_every_stage_of_a_region_whose_columns_aic_gather_joins(tmp_path):
    torch.manual_seed(5)
    x, w = torch.randn(64, 64), torch.randn(64, 64)
    check_every_stage(gather_columns, tmp_path, (2 * x) @ w, x, w, torch.zeros(64, 64))


def test_the_region_runs_per_lane_and_records_the_values_aic_gather_joins():
    x, w, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    script = torch_codegen(gather_columns._parse(gather_columns.specialize(x, w, out)))
    assert "_scaled_lanes = [None, None]" in script
    assert "for _lane in split_aiv_lanes():  # scope SplitAiv" in script
    assert "        _scaled_lanes[_lane] = scaled\n" in script
    assert "tile_aic_gather(TileSpec([64, 64], torch.float32, [64, 64], 'null'), _scaled_lanes, split=2)" in script


# ---- the prelude's ops on their own

@pytest.fixture(scope="module")
def prelude():
    x, w, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    return load_torch_script(torch_codegen(gather_columns._parse(gather_columns.specialize(x, w, out))))


def spec(prelude, rows, cols):
    return prelude.TileSpec([rows, cols], torch.float32, [rows, cols])


def test_aiv_shard_cuts_the_valid_region_as_the_pipe_does_and_get_subblock_idx_is_the_lane(prelude):
    """17 valid rows of 32: lane 0's part is 16 valid rows, lane 1's one; outside the region the lane is 0 again."""
    source = prelude.Tile(torch.arange(32 * 64, dtype=torch.float32).reshape(32, 64), [17, 40])
    parts = []
    for lane in prelude.split_aiv_lanes():
        assert prelude.tile_get_subblock_idx(None) == lane
        parts.append(prelude.tile_aiv_shard(spec(prelude, 16, 64), source, split=prelude.SPLIT_UP_DOWN))
    assert prelude.tile_get_subblock_idx(None) == 0
    assert [p.valid for p in parts] == [[16, 40], [1, 40]]
    torch.testing.assert_close(parts[0].region(), source.data[:16, :40])
    torch.testing.assert_close(parts[1].region(), source.data[16:17, :40])


def test_aic_gather_joins_up_down_left_right_and_takes_lane_0s_under_none(prelude):
    lanes = [prelude.Tile(torch.full((16, 32), float(lane)), [16, 32]) for lane in (0, 1)]
    stacked = prelude.tile_aic_gather(spec(prelude, 32, 32), lanes, split=prelude.SPLIT_UP_DOWN)
    assert stacked.valid == [32, 32] and stacked.data[:16].eq(0).all() and stacked.data[16:].eq(1).all()
    side = prelude.tile_aic_gather(spec(prelude, 16, 64), lanes, split=prelude.SPLIT_LEFT_RIGHT)
    assert side.valid == [16, 64] and side.data[:, :32].eq(0).all() and side.data[:, 32:].eq(1).all()
    first = prelude.tile_aic_gather(spec(prelude, 16, 32), lanes, split=prelude.SPLIT_NONE)
    assert first.valid == [16, 32] and first.data.eq(0).all()
