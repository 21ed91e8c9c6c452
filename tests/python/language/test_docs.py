"""The python blocks of each docs/language page run, in order, as one module."""

import importlib.util
import re
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs" / "language"
PAGES = ["types.md", "functions.md", "control-flow.md", "scopes.md", "operators.md"]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(page, tmp_path, monkeypatch):
    blocks = python_blocks((DOCS / page).read_text())
    assert blocks, f"{page} has no python examples"
    module_path = tmp_path / (page.replace("-", "_").replace(".md", "_examples.py"))
    module_path.write_text("\n\n".join(blocks))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # classes find their source through it
    spec.loader.exec_module(module)
