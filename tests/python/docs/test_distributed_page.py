"""docs/distributed.md: its python blocks (run by docs_manual.py) define kernels that type-check (running them
needs several ranks: the examples do that, see tests/python/distributed/); it lists every
example of examples/distributed/."""

import pytest

from docs_manual import REPO as ROOT
from docs_manual import run_page

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")

PAGE = ROOT / "docs" / "distributed.md"


def test_the_page_kernels_lower(tmp_path, monkeypatch, tmp_path_factory):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    page = run_page("distributed.md", tmp_path_factory).module
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


def test_every_example_is_listed():
    text = PAGE.read_text()
    for example in sorted((ROOT / "examples" / "distributed").glob("[0-9]*.py")):
        assert f"examples/distributed/{example.name}" in text, example.name


def test_the_page_is_linked_from_the_index():
    assert "(distributed.md)" in (ROOT / "docs" / "index.md").read_text()
    assert "(distributed.md)" in (ROOT / "docs" / "running.md").read_text()
