"""The python blocks of the execution pages (compiling, running, performance, runtime DFX) run, in order, each page as one module, and print what they say."""

import importlib.util
import re
import sys
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs"


def run_page(name, tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    monkeypatch.chdir(tmp_path)
    # Blocks inside list items are indented with the item.
    blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", (DOCS / name).read_text(), flags=re.S)]
    assert blocks, f"docs/{name} has no python examples"
    module_path = tmp_path / (name.replace(".md", "").replace("-", "_") + "_page.py")
    module_path.write_text("\n\n".join(blocks))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # kernels find their source through it
    spec.loader.exec_module(module)
    return module


def test_compiling_page(tmp_path, monkeypatch, capsys):
    run_page("compiling.md", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert "kernels/aiv/add_relu_incore_0.cpp" in printed
    assert "orchestration/add_relu.ll" in printed
    assert "ir.compile OK" in printed


def test_running_page(tmp_path, monkeypatch, capsys):
    run_page("running.md", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert "faulted in TLOAD" in printed
    assert "the window reaches" in printed
    assert "faulted in TLOG" in printed and "row 3, column 17" in printed


def test_performance_page(tmp_path, monkeypatch, capsys):
    run_page("performance.md", tmp_path, monkeypatch)
    assert "spmd softmax OK" in capsys.readouterr().out


def test_runtime_dfx_page(tmp_path, monkeypatch, capsys):
    run_page("runtime-dfx.md", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert ("['chip_swimlane.json', 'chip_swimlane_device.json', 'deps.dot', 'deps.json', 'pmu.csv']"
            in printed)
    assert "on the device: 2.57 us" in printed
    assert "exp_all after (64, 64) True" in printed and "add_back before (64, 64) True" in printed
    assert printed.count("(overlap)") == 4
    assert "5 kernel slices, for example exp_rows (task" in printed


def test_mixed_kernels_page(tmp_path, monkeypatch, capsys):
    run_page("mixed-kernels.md", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    page = (DOCS / "mixed-kernels.md").read_text()
    assert "mixed linear OK" in printed and "split_aiv OK" in printed
    assert "['kernels/aic/linear_aic.cpp', 'kernels/aiv/linear_aiv.cpp']" in printed
    error = next(line for line in printed.splitlines() if line.startswith("ExpandMixedKernel:"))
    assert error in page  # the page shows what the run prints


@pytest.mark.parametrize("page", ["compiling.md", "running.md", "performance.md", "runtime-dfx.md", "mixed-kernels.md"])
def test_links_resolve(page):
    text = (DOCS / page).read_text()
    for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", text):
        assert (DOCS / target).is_file(), f"{page} links {target}"
