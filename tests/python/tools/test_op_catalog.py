"""The operator catalog page (docs/operations/catalog.md) matches the op registry."""

import subprocess
import sys

from pypto import ops
from pypto.tools import op_catalog


def _generated_in_fresh_session() -> str:
    """The page as a plain `import pypto` session generates it: ops this test session's other
    tests register (through plugins) must not leak into the comparison."""
    result = subprocess.run([sys.executable, "-m", "pypto.tools.op_catalog"], capture_output=True, text=True,
                            check=True)
    return result.stdout


def test_committed_catalog_is_current():
    committed = op_catalog.CATALOG_PATH.read_text() if op_catalog.CATALOG_PATH.exists() else None
    message = op_catalog.stale_message(committed, _generated_in_fresh_session())
    assert message is None, message


def test_every_registered_op_has_a_row():
    page = op_catalog.CATALOG_PATH.read_text()
    missing = [op.name for op in ops.list_ops() if f"| `{op_catalog.dsl_spelling(op.name)}` |" not in page]
    assert not missing, f"ops without a catalog row: {missing}; run `{op_catalog.REGENERATE}`"


def test_an_added_op_makes_the_page_stale():
    every_op = ops.list_ops()
    without_one = [op for op in every_op if op.name != "tile.add"]
    message = op_catalog.stale_message(op_catalog.render(without_one), op_catalog.render(every_op))
    assert message is not None and op_catalog.REGENERATE in message


def test_same_registry_same_page():
    assert op_catalog.render() == op_catalog.render(reversed(ops.list_ops()))
    assert op_catalog.stale_message(op_catalog.render(), op_catalog.render()) is None


def test_missing_page_names_the_fix(tmp_path):
    message = op_catalog.stale_message(None, op_catalog.render(), tmp_path / "catalog.md")
    assert "is missing" in message and op_catalog.REGENERATE in message


def test_check_exits_1_on_a_stale_page(monkeypatch, tmp_path, capsys):
    stale = tmp_path / "catalog.md"
    stale.write_text("# an old catalog\n")
    monkeypatch.setattr(op_catalog, "CATALOG_PATH", stale)
    assert op_catalog.main(["--check"]) == 1
    assert op_catalog.REGENERATE in capsys.readouterr().err


def test_cells_escape_pipes():
    assert op_catalog._cell("a | b\n c") == "a \\| b c"


def test_distributed_ops_are_spelled_with_pld():
    assert op_catalog.dsl_spelling("tensor.allreduce") == "pld.tensor.allreduce"
    assert op_catalog.dsl_spelling("tile.add") == "pl.tile.add"
    assert "pl.add" in op_catalog.short_forms()["tile.adds"]
