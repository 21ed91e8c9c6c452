"""RunConfig(enable_scope_stats=True): dfx_outputs/scope_stats/scope_stats.jsonl (metadata, then a line per scope
with what its tasks asked of the runtime) and scope_stats.html (a timeline per ring)."""

import json
import shutil
import subprocess
import sys
from types import SimpleNamespace

import pytest
import torch

import pypto.language as pl
from pypto.runtime import RunConfig, scope_stats


@pl.jit
def staged_halves(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    for i in pl.parallel(0, 2):
        stage = pl.create_tensor([32, 64], pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="exp_half"):
            stage[:] = pl.exp(x[i * 32:i * 32 + 32, :])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_half"):
            y[i * 32:i * 32 + 32, :] = pl.add(stage, x[i * 32:i * 32 + 32, :])
    return y


@pytest.fixture(autouse=True)
def build_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    staged_halves.clear_cache()


def _run(config):
    x, y = torch.randn(64, 64), torch.zeros(64, 64)
    staged_halves(x, y, config=config)
    torch.testing.assert_close(y, torch.exp(x) + x)
    compiled = staged_halves.compile(x, y, config=config)
    return compiled.dfx_dir / scope_stats.SCOPE_STATS_DIR


def _records(folder):
    return [json.loads(line) for line in (folder / scope_stats.STATS_FILE).read_text().splitlines()]


def test_the_parallel_loop_is_a_scope_with_its_tasks_edges_and_heap():
    folder = _run(RunConfig(enable_scope_stats=True))
    head, *scopes = _records(folder)
    assert head["kind"] == "metadata" and head["entry"] == "staged_halves" and head["scopes"] == 1
    (loop,) = scopes
    assert (loop["mode"], loop["depth"], loop["ring"], loop["parent_id"]) == ("parallel", 0, 0, None)
    assert loop["iterations"] == 2
    assert loop["tasks"] == 4
    assert loop["dep_pool_entries"] == 2  # each add waits for its exp
    assert loop["heap_bytes"] == 2 * 32 * 64 * 4  # one stage tensor per iteration
    assert 1 <= loop["peak_task_slots"] <= 4
    assert loop["tensormap_entries"] >= 2
    assert 0 <= loop["begin_us"] <= loop["end_us"]
    assert loop["over"] == []
    assert [r["ring"] for r in head["rings"]] == [0, 1, 2, 3]
    assert head["rings"][0]["heap_bytes_peak"] == loop["heap_bytes"]
    assert head["rings"][0]["task_window_max"] is None  # RunConfig leaves the rings unbounded


def test_ring_limits_come_from_the_run_config_and_a_scope_over_them_is_flagged():
    folder = _run(RunConfig(enable_scope_stats=True, ring_heap=[1024, 2048, 4096, 8192], ring_dep_pool=4))
    head, loop = _records(folder)
    assert [r["heap_max"] for r in head["rings"]] == [1024, 2048, 4096, 8192]
    assert [r["dep_pool_max"] for r in head["rings"]] == [4] * 4
    assert loop["over"] == ["heap_max"]  # 16 KiB of stage tensors on a 1 KiB ring
    page = (folder / scope_stats.PLOT_FILE).read_text()
    assert 'class="over"' in page and 'stroke="#c00"' in page


def test_the_page_has_a_timeline_per_ring_and_a_bar_per_scope():
    folder = _run(RunConfig(enable_scope_stats=True))
    page = (folder / scope_stats.PLOT_FILE).read_text()
    assert page.count("<svg") == 4 and all(f'data-ring="{r}"' in page for r in range(4))
    assert page.count('<g class="scope">') == 1
    assert "peak_task_slots" in page and "staged_halves" in page


def test_the_page_is_drawn_again_from_the_jsonl_file(tmp_path):
    folder = _run(RunConfig(enable_scope_stats=True))
    out = tmp_path / "again.html"
    done = subprocess.run([sys.executable, "-m", "pypto.runtime.scope_stats", str(folder / scope_stats.STATS_FILE),
                           "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == (folder / scope_stats.PLOT_FILE).read_text()


def test_a_file_that_is_not_scope_stats_is_refused(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"scope_id": "0"}\n')
    done = subprocess.run([sys.executable, "-m", "pypto.runtime.scope_stats", str(bad)], capture_output=True,
                          text=True)
    assert done.returncode == 2 and "not a scope_stats.jsonl file" in done.stderr and "Traceback" not in done.stderr


def test_without_the_flag_no_scope_stats_are_written():
    folder = _run(RunConfig(enable_dep_gen=True))
    assert not folder.exists()


def test_nested_scopes_go_on_deeper_rings():
    scopes = [SimpleNamespace(scope_id=i, parent_id=i - 1, mode="auto", depth=i, begin_ns=i, end_ns=10 - i,
                              iterations=0, tasks=1, peak_tasks_in_flight=1, dep_edges=0,
                              peak_tensormap_entries=1, heap_bytes=0) for i in range(6)]
    lines = scope_stats.scope_lines(SimpleNamespace(scopes=scopes), scope_stats.ring_limits(RunConfig()))
    assert [line["ring"] for line in lines] == [0, 1, 2, 3, 3, 3]
    assert lines[0]["parent_id"] is None and lines[1]["parent_id"] == "0"


@pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed")
def test_the_page_opens_in_headless_chromium_without_console_errors(tmp_path):
    folder = _run(RunConfig(enable_scope_stats=True))
    done = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", "--dump-dom", (folder / scope_stats.PLOT_FILE).as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0
    assert '<g class="scope">' in done.stdout
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console
