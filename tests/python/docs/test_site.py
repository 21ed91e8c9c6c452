"""`make docs`: the manual builds as HTML in MkDocs' strict mode (no broken link or anchor, no page outside the
navigation), its front page links every part a reader expects, and the build hooks do their two jobs."""

import re
import subprocess
import sys

import pytest
import yaml
from docs_manual import DOCS, REPO, pages

# The contents every reader expects, as (what the front page calls it, the page).
CONTENTS = [
    ("Installation", "installation.md"), ("Quickstart", "quickstart.md"), ("Programming model", "programming-model.md"),
    ("Types", "language/types.md"), ("Functions", "language/functions.md"), ("Control flow", "language/control-flow.md"),
    ("Memory", "language/memory.md"), ("Scopes and tasks", "language/scopes.md"), ("Directives", "language/directives.md"),
    ("Namespaces", "operations/index.md"), ("Operator catalog", "operations/catalog.md"), ("Compiling", "compiling.md"),
    ("Running", "running.md"), ("Torch codegen debug guide", "torch-codegen.md"),
    ("Distributed programming", "distributed.md"), ("Diagnostics", "diagnostics.md"), ("Runtime DFX", "runtime-dfx.md"),
    ("Memory map", "memory-map.md"), ("External kernels", "external-kernels.md"), ("Writing a plugin", "writing-a-plugin.md"),
    ("Plugins, passes and pipelines", "plugins.md"), ("Pipelines", "pipelines.md"), ("Passes", "passes/index.md"),
]
READING_PATHS = ["first kernel", "wrong numbers", "slow", "several devices"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(folder)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "WARNING" not in done.stderr, done.stderr
    return folder


def test_the_site_builds_strict_and_has_every_page(site):
    missing = [page for page in pages() if not (site / page.replace(".md", ".html")).is_file()
               and not (site / re.sub(r"(index)?\.md$", "", page) / "index.html").is_file()]
    assert not missing, f"pages the site lacks: {missing}"


def test_the_front_page_links_the_contents_and_the_reading_paths():
    front = (DOCS / "index.md").read_text()
    for title, page in CONTENTS:
        assert f"[{title}]({page})" in front, f"docs/index.md does not link {title} -> {page}"
        assert (DOCS / page).is_file(), page
    paths = front.split("## Contents")[0].lower()
    assert all(path in paths for path in READING_PATHS), "docs/index.md lost one of its four reading paths"
    assert "## What PyPTO gives you" in front


def test_every_page_is_in_the_navigation():
    def listed(entries):
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            yield from listed(value) if isinstance(value, list) else [value]
    nav = set(listed(yaml.safe_load((REPO / "mkdocs.yml").read_text())["nav"]))
    assert set(pages()) - nav == set(), f"pages not in mkdocs.yml's nav: {sorted(set(pages()) - nav)}"


def test_pass_case_fences_render_as_code(site):
    """`python before` is test metadata; the site shows a python block for it."""
    page = (site / "passes" / "Simplify" / "index.html").read_text()
    source = (DOCS / "passes" / "Simplify.md").read_text()
    blocks = len(re.findall(r"^```\w", source, flags=re.M))
    assert page.count('<div class="highlight">') == blocks
    assert page.count('<span class="kn">import</span>') >= source.count("```python")  # highlighted as python
    assert "```python" not in page


def test_links_to_clone_files_point_at_copies_in_the_site(site):
    page = (site / "distributed" / "index.html").read_text()
    assert 'href="../_repo/examples/distributed/01_hello_rank.py"' in page
    assert (site / "_repo" / "examples" / "distributed" / "01_hello_rank.py").is_file()
