"""docs/distributed.md: its python blocks, run in order as one module, define kernels that type-check (running them
needs several ranks: the examples do that, see tests/python/distributed/); its links resolve; it lists every
example of examples/distributed/."""

import importlib.util
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "distributed.md"


def load_page(tmp_path, monkeypatch):
    blocks = [textwrap.dedent(b) for b in re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)]
    assert blocks, "docs/distributed.md has no python examples"
    module_path = tmp_path / "distributed_page.py"
    module_path.write_text("\n\n".join(blocks))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # kernels find their source through it
    spec.loader.exec_module(module)
    return module


def test_the_page_kernels_lower(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    page = load_page(tmp_path, monkeypatch)
    from pypto import ir
    assert "pl.FunctionType.InCore" in ir.as_python(page.offset_row.lower(r=2))
    for name in ("halo_by_get", "sum_into_rank0"):
        text = ir.as_python(getattr(page, name).lower())
        assert "pld.DistributedTensor[" in text, name
    text = ir.as_python(page.barrier_once.lower())
    assert "pld.system.notify(" in text and "pld.system.wait(" in text
    text = ir.as_python(page.shift_dev.lower())
    assert "pld.system.defer_wait(" in text and "deps=[arrived]" in text
    assert page.offset_all.kind == "host" and page.offset_row_dev.kind == "orchestration"
    assert "rt.dispatch('offset_row_dev', r, " in page.offset_all.compile().source
    source = page.two_domains.compile().source
    assert "rt.comm_domain('comm_d0', [0, 1])" in source and "rt.comm_domain('comm_d1', [1, 2])" in source


def test_links_resolve():
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", PAGE.read_text()):
        assert (PAGE.parent / target).exists(), f"docs/distributed.md links {target}"


def test_every_example_is_listed():
    text = PAGE.read_text()
    for example in sorted((ROOT / "examples" / "distributed").glob("[0-9]*.py")):
        assert f"examples/distributed/{example.name}" in text, example.name


def test_the_page_is_linked_from_the_index():
    assert "(docs/distributed.md)" in (ROOT / "README.md").read_text()
    assert "(distributed.md)" in (ROOT / "docs" / "running.md").read_text()
