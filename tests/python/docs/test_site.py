"""`make docs`: the manual builds as HTML in MkDocs' strict mode (no broken link or anchor, no page outside the
navigation), its front page links every part a reader expects, the build hooks do their two jobs, and a site built
from the same inputs is not built again."""

import os
import re
import sys

import pytest
import yaml
from docs_manual import DOCS, REPO, pages

sys.path.insert(0, str(REPO / "scripts"))
import docs_site  # noqa: E402

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
    ("Contributing: the test suite and the CI budget", "contributing.md"),
]
READING_PATHS = ["first kernel", "wrong numbers", "slow", "several devices"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site as `make docs` builds it; under `make test` into site/ itself (PYPTO_SITE_DIR), where it stays."""
    folder = os.environ.get("PYPTO_SITE_DIR")
    folder = tmp_path_factory.mktemp("site") if not folder else REPO / folder
    docs_site.build(folder)
    return folder


def test_make_docs_keeps_a_site_built_from_the_same_inputs(site, capsys):
    assert docs_site.main(["--site-dir", str(site)]) == 0
    assert "is current" in capsys.readouterr().out


def test_the_fingerprint_follows_the_pages_the_registry_and_the_linked_files():
    catalog = docs_site.generated_catalog()
    assert docs_site.fingerprint(catalog) == docs_site.fingerprint(catalog)
    assert docs_site.fingerprint(catalog + "| `pl.new_op` | |\n") != docs_site.fingerprint(catalog)
    linked = {p.relative_to(REPO).as_posix() for p in docs_site.linked_clone_files()}
    assert "examples/distributed/01_hello_rank.py" in linked and not any(p.startswith("docs/") for p in linked)


def test_a_stale_catalog_stops_the_build():
    with pytest.raises(docs_site.DocsError, match="op_catalog --write"):
        docs_site.check_catalog(docs_site.generated_catalog() + "| `pl.new_op` | |\n")


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
