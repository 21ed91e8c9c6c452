"""What the execution pages (compiling, running, performance, runtime DFX, mixed kernels) print, beyond the blocks the
page shows as output: the runner (docs_manual.py) runs each page once per session (per xdist worker)."""

import pytest

from docs_manual import DOCS, run_page

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")


def test_compiling_page(tmp_path_factory):
    printed = run_page("compiling.md", tmp_path_factory).printed
    assert "kernels/aiv/add_relu_incore_0.cpp" in printed
    assert "orchestration/add_relu.ll" in printed
    assert "ir.compile OK" in printed


def test_running_page(tmp_path_factory):
    printed = run_page("running.md", tmp_path_factory).printed
    assert "faulted in TLOAD" in printed
    assert "the window reaches" in printed
    assert "faulted in TLOG" in printed and "row 3, column 17" in printed


def test_performance_page(tmp_path_factory):
    assert "spmd softmax OK" in run_page("performance.md", tmp_path_factory).printed


def test_runtime_dfx_page(tmp_path_factory):
    printed = run_page("runtime-dfx.md", tmp_path_factory).printed
    assert ("['chip_swimlane.json', 'chip_swimlane_device.json', 'deps.dot', 'deps.json', 'pmu.csv']"
            in printed)
    assert "on the device: 2.57 us" in printed
    assert "exp_all after (64, 64) True" in printed and "add_back before (64, 64) True" in printed
    assert printed.count("(overlap)") == 4
    assert "5 kernel slices, for example exp_rows (task" in printed


def test_mixed_kernels_page(tmp_path_factory):
    printed = run_page("mixed-kernels.md", tmp_path_factory).printed
    page = (DOCS / "mixed-kernels.md").read_text()
    assert "mixed linear OK" in printed and "split_aiv OK" in printed
    assert "['kernels/aic/linear_aic.cpp', 'kernels/aiv/linear_aiv.cpp']" in printed
    error = next(line for line in printed.splitlines() if line.startswith("ExpandMixedKernel:"))
    assert error in page  # the page shows what the run prints
