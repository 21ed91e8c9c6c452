"""The user manual (docs/) as the test suite sees it: every page's code runs or says why not, what a page says a
block prints is what it prints, and its links lead somewhere. How pages mark blocks: tests/python/docs_manual.py."""

import pytest
from docs_manual import (blocks, has_runnable_code, inline_command_problems, link_problems, marker_problems,
                         output_mismatches, pages, run_page)

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")

RUNNABLE = [page for page in pages() if has_runnable_code(page)]


@pytest.mark.parametrize("page", RUNNABLE)
def test_page_code_runs_and_prints_what_the_page_shows(page, tmp_path_factory):
    run = run_page(page, tmp_path_factory)
    assert not output_mismatches(page, run), "\n\n".join(output_mismatches(page, run))


@pytest.mark.parametrize("page", pages())
def test_markers_are_well_formed(page):
    assert not marker_problems(page), "\n".join(marker_problems(page))


@pytest.mark.parametrize("page", pages())
def test_links_resolve(page):
    assert not link_problems(page), "\n".join(link_problems(page))


@pytest.mark.parametrize("page", pages())
def test_commands_quoted_in_the_prose_exist(page):
    assert not inline_command_problems(page), "\n".join(inline_command_problems(page))


def test_python_blocks_with_words_are_pass_cases_on_pass_pages():
    """`python before` blocks run through tests/python/test_pass_docs.py, which reads docs/passes/ only."""
    misplaced = [b.where for page in pages() for b in blocks(page)
                 if b.lang == "python" and b.words and (not b.is_pass_case or not page.startswith("passes/"))]
    assert not misplaced, f"python blocks tagged with words the runner does not know: {misplaced}"
