"""Runtime DFX of a mixed kernel (docs/runtime-dfx.md, "Mixed kernels"): a Group whose AIC kernel pushes tiles to
its AIV kernel through the cluster's cross-core pipe, run with enable_chip_swimlane and enable_pmu. Both swimlanes
draw the AIC and AIV tracks of one cluster with the pipe's waits as pipe_wait slices inside the kernel slices, and
pmu.csv charges the pipe's instructions and counts the tiles and bytes that crossed."""

import csv
import json

import pytest
import torch
from mixed_programs import PushPop

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig, dfx, pmu
from pypto.tools import swimlane_view

TILE_BYTES = 16 * 64 * 4


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return ir.compile(PushPop, tmp_path_factory.mktemp("push_pop"), config=RunConfig(platform="a2a3sim"))


def _run(compiled, config):
    x, out = torch.randn(32, 64), torch.full((32, 64), float("nan"))
    compiled(x, out, config=config)
    torch.testing.assert_close(out, x + 1, rtol=0, atol=0)
    return compiled.dfx_dir


def _load(folder, name):
    return json.loads((folder / name).read_text())


def _tracks(document):
    """(pid, tid) -> thread name, and pid -> process name."""
    threads, processes = {}, {}
    for e in document["traceEvents"]:
        if e.get("ph") == "M" and e["name"] == "thread_name":
            threads[(e["pid"], e["tid"])] = e["args"]["name"]
        if e.get("ph") == "M" and e["name"] == "process_name":
            processes[e["pid"]] = e["args"]["name"]
    return threads, processes


def _slices(document, cat):
    return [e for e in document["traceEvents"] if e.get("ph") == "X" and e.get("cat") == cat]


def _nested(child, parents):
    """The slice on child's track that contains it."""
    inside = [p for p in parents if (p["pid"], p["tid"]) == (child["pid"], child["tid"])
              and p["ts"] - 1e-6 <= child["ts"] and child["ts"] + child["dur"] <= p["ts"] + p["dur"] + 1e-6]
    assert len(inside) == 1, (child, parents)
    return inside[0]


@pytest.mark.parametrize("name", [dfx.SWIMLANE_FILE, dfx.DEVICE_SWIMLANE_FILE])
def test_the_aic_and_aiv_tracks_of_one_cluster_show_the_pipe_waits(compiled, name):
    document = _load(_run(compiled, RunConfig(enable_chip_swimlane=1)), name)
    threads, processes = _tracks(document)
    kernels = _slices(document, "kernel")
    by_kernel = {k["args"]["kernel"]: k for k in kernels}
    assert set(by_kernel) == {"producer", "consumer"}
    aic, aiv = by_kernel["producer"], by_kernel["consumer"]
    # One cluster task: both kernels on the same cluster's process, the AIC and the AIV0 track.
    assert aic["pid"] == aiv["pid"] and processes[aic["pid"]].startswith("cluster ")
    assert threads[(aic["pid"], aic["tid"])] == "AIC"
    assert threads[(aiv["pid"], aiv["tid"])] == "AIV0"
    assert aic["args"]["task_id"] == aiv["args"]["task_id"]
    # The kernels' pipe traffic: two tiles of 16 x 64 FP32 across, in args.
    assert (aic["args"]["pipe_tiles_pushed"], aic["args"]["pipe_bytes_pushed"]) == (2, 2 * TILE_BYTES)
    assert (aiv["args"]["pipe_tiles_popped"], aiv["args"]["pipe_bytes_popped"]) == (2, 2 * TILE_BYTES)
    waits = _slices(document, dfx.PIPE_WAIT_CATEGORY)
    for wait in waits:
        assert _nested(wait, kernels) in (aic, aiv)
        assert wait["dur"] > 0
        args = wait["args"]
        assert wait["name"] == f"wait {args['instruction']} ({args['ring']} lane {args['lane']})"
    if name == dfx.DEVICE_SWIMLANE_FILE:
        # In device time the consumer's first pop waits for the producer's load and push: always.
        pops = [w for w in waits if w["name"] == "wait TPOP_FROM_AIC (C2V lane 0)"]
        assert pops and all(_nested(w, kernels) is aiv for w in pops)
        assert pops[0]["args"]["waits_for"] == "a tile" and pops[0]["args"]["wait_cycles"] > 0
        # The first tile is there once the AIC pushed it: after the AIC's TLOAD (MTE2) and its push.
        assert pops[0]["ts"] + pops[0]["dur"] > aic["ts"] + aic["args"]["MTE2_cycles"] / 1800.0


def test_device_time_waits_are_the_same_in_every_run(compiled):
    def device_waits():
        document = _load(_run(compiled, RunConfig(enable_chip_swimlane=1)), dfx.DEVICE_SWIMLANE_FILE)
        return [(w["name"], w["ts"], w["dur"]) for w in _slices(document, dfx.PIPE_WAIT_CATEGORY)], \
            [(k["args"]["kernel"], k["dur"]) for k in _slices(document, "kernel")]

    first = device_waits()
    assert first[0]
    for _ in range(3):
        assert device_waits() == first


def test_pmu_csv_charges_the_pipe_instructions_and_counts_their_bytes(compiled):
    folder = _run(compiled, RunConfig(enable_pmu=True))
    with (folder / pmu.PMU_FILE).open() as f:
        rows = {r["kernel"]: r for r in csv.DictReader(f)}
    assert list(next(iter(rows.values()))) == pmu.columns(pmu.ALL_EVENTS)
    aic, aiv = rows["producer"], rows["consumer"]
    assert (aic["core"], aiv["core"]) == ("AIC", "AIV0")
    assert aic["cluster"] == aiv["cluster"]
    # The AIC: two TLOADs and its init on MTE2, two pushes out of Mat on MTE1 into the ring (GM).
    assert int(aic["MTE1_instructions"]) == 2
    assert int(aic["MTE1_busy_cycles"]) > 0
    assert int(aic["Mat_bytes_read"]) == 2 * TILE_BYTES
    assert int(aic["GM_bytes_written"]) == 2 * TILE_BYTES
    assert (int(aic["pipe_tiles_pushed"]), int(aic["pipe_bytes_pushed"])) == (2, 2 * TILE_BYTES)
    # The AIV: its init, two pops and two frees on MTE2; the pops load the ring's tiles into Vec.
    assert int(aiv["MTE2_instructions"]) == 5
    assert int(aiv["Vec_bytes_written"]) >= 2 * TILE_BYTES
    assert int(aiv["GM_bytes_read"]) == 2 * TILE_BYTES
    assert (int(aiv["pipe_tiles_popped"]), int(aiv["pipe_bytes_popped"])) == (2, 2 * TILE_BYTES)
    # Its first pop waited for the AIC's load and push, and the wait is part of its cycles.
    assert 0 < int(aiv["pipe_wait_cycles"]) < int(aiv["cycles"])
    assert int(aic["pipe_tiles_popped"]) == int(aiv["pipe_tiles_pushed"]) == 0


def test_the_offline_viewer_draws_the_wait_slices(compiled, tmp_path):
    folder = _run(compiled, RunConfig(enable_chip_swimlane=1))
    page = swimlane_view.write(folder / dfx.DEVICE_SWIMLANE_FILE, tmp_path / "device.html").read_text()
    assert "wait TPOP_FROM_AIC (C2V lane 0)" in page
    assert dfx.PIPE_WAIT_CATEGORY in page
