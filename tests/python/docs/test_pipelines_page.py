"""The python blocks of docs/pipelines.md run, in order, as one module."""

import importlib.util
import re
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parents[3] / "docs" / "pipelines.md"


def test_page_examples_run(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) >= 3, "docs/pipelines.md lost its python examples"
    module_path = tmp_path / "pipelines_page_examples.py"
    module_path.write_text("\n\n".join(blocks))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # kernels find their source through it
    spec.loader.exec_module(module)
    printed = capsys.readouterr().out
    assert "['00_input.py', '01_ConvertToSSA.py', '02_InlineFunctions.py']" in printed
    assert "['ConvertToSSA', 'InlineFunctions', 'UnrollLoops', 'Simplify']" in printed
    assert "pl.tile.exp" in printed


def test_every_pass_the_page_links_has_a_page():
    for target in re.findall(r"\]\((passes/[^)]+\.md)\)", PAGE.read_text()):
        assert (PAGE.parent / target).is_file(), target
