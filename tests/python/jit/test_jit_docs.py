"""The python blocks of docs/jit.md run, in order, as one module (once pypto.language is installed)."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[3] / "docs" / "jit.md"


def test_page_examples_run(tmp_path, monkeypatch, build_dir):
    pytest.importorskip("pypto.language")
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert blocks, "docs/jit.md has no python examples"
    module_path = tmp_path / "jit_page_examples.py"
    module_path.write_text("\n\n".join(blocks))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # kernels find their source through it
    spec.loader.exec_module(module)
