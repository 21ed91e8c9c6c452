"""What docs/pipelines.md prints: the dump folder's first files, a custom pipeline's passes and its effect."""

import pytest

from docs_manual import run_page

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")


def test_page_examples_print_what_the_page_says(tmp_path_factory):
    printed = run_page("pipelines.md", tmp_path_factory).printed
    assert "['00_input.py', '01_ConvertToSSA.py', '02_InlineFunctions.py']" in printed
    assert "['ConvertToSSA', 'InlineFunctions', 'UnrollLoops', 'Simplify']" in printed
    assert "pl.tile.exp" in printed

