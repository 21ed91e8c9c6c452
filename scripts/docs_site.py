"""Builds the user manual's HTML site (what `make docs` runs), or says the one in --site-dir is current.

A build checks the operator catalog against the registry, runs `mkdocs build --strict` (a broken link or anchor,
or a page outside the navigation, is an error) and stamps the site with a fingerprint of what it was built from:
every file under docs/, mkdocs.yml, the build hooks, the clone files the pages link (the site carries copies of
them) and the catalog the op registry generates. A site whose stamp matches is current and is not built again:
`make test` builds it on the way (tests/python/docs/test_site.py writes to PYPTO_SITE_DIR), so `make docs` right
after it has nothing to redo.

    python scripts/docs_site.py --site-dir site [--force]
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
CATALOG = DOCS / "operations" / "catalog.md"
STAMP = ".pypto-site-fingerprint"
BUILD_INPUTS = ("mkdocs.yml", "scripts/mkdocs_hooks.py", "scripts/docs_site.py")

sys.path.insert(0, str(REPO / "scripts"))
from mkdocs_hooks import LINK, outside_target  # noqa: E402  (the hooks decide which clone files the site copies)


class DocsError(Exception):
    """The site cannot be built: the message says what is wrong and how to fix it."""


def generated_catalog() -> str:
    """The catalog page a plain `import pypto` session generates from the op registry."""
    done = subprocess.run([sys.executable, "-m", "pypto.tools.op_catalog"], capture_output=True, text=True, cwd=REPO)
    if done.returncode != 0:
        raise DocsError(f"python -m pypto.tools.op_catalog failed:\n{done.stderr}")
    return done.stdout


def linked_clone_files() -> set[Path]:
    """The files outside docs/ that pages link to."""
    return {target for page in DOCS.rglob("*.md") for link in LINK.finditer(page.read_text())
            if (target := outside_target(DOCS, page.parent, link["path"])) is not None}


def fingerprint(catalog: str) -> str:
    files = {p for p in DOCS.rglob("*") if p.is_file()} | {REPO / name for name in BUILD_INPUTS} | linked_clone_files()
    digest = hashlib.sha256()
    for path in sorted(files):
        digest.update(path.relative_to(REPO).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    digest.update(b"generated catalog\0" + catalog.encode())
    return digest.hexdigest()


def is_current(site_dir: Path, print_: str) -> bool:
    stamp = site_dir / STAMP
    return stamp.is_file() and stamp.read_text().strip() == print_


def check_catalog(catalog: str) -> None:
    if CATALOG.is_file() and CATALOG.read_text() == catalog:
        return
    raise DocsError(f"{CATALOG.relative_to(REPO)} no longer matches the op registry; regenerate it with "
                    "`python -m pypto.tools.op_catalog --write` and commit it")


def build(site_dir: Path) -> None:
    """Checks the catalog, builds the site in strict mode into `site_dir` and stamps it."""
    catalog = generated_catalog()
    check_catalog(catalog)
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site_dir)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 or "WARNING" in done.stderr:
        raise DocsError(f"mkdocs build --strict failed:\n{done.stderr}")
    (site_dir / STAMP).write_text(fingerprint(catalog) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/docs_site.py", description=__doc__.splitlines()[0])
    parser.add_argument("--site-dir", type=Path, default=REPO / "site", help="where the site goes (default: site/)")
    parser.add_argument("--force", action="store_true", help="build even when the site is current")
    args = parser.parse_args(argv)
    site_dir = args.site_dir.resolve()
    try:
        if not args.force and is_current(site_dir, fingerprint(generated_catalog())):
            print(f"docs: {site_dir / 'index.html'} is current (same pages, same op registry); --force rebuilds it")
            return 0
        build(site_dir)
    except DocsError as error:
        print(f"docs: {error}", file=sys.stderr)
        return 1
    print(f"docs: the manual is in {site_dir / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
