"""Follows the pages a newcomer reads first the way the pages say, from the root of this clone.

CI runs it on a fresh clone after `make test` (which is what Installation's first command does). The docs runner
of the test suite has already run every block of these pages (tests/python/docs/test_manual.py: the python blocks
as one module, the shell blocks in a view of the clone). What is left to prove is what only a newcomer does:
  * the shell blocks run as written from the clone's root itself, with nothing prepared;
  * the pages hide no setup code, so the python the newcomer copies is all the python that runs.
"""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))
from docs_manual import SHELLS, blocks, setups  # noqa: E402  (the one reader of the markers)

PAGES = ["installation.md", "quickstart.md", "programming-model.md"]


def try_page(page: str) -> int:
    """Runs the page's shell blocks from the clone's root; returns how many ran."""
    if setups(page):
        sys.exit(f"docs/{page} has hidden setup code: a newcomer would not see it")
    shell = [b for b in blocks(page) if b.runs_here and b.lang in SHELLS]
    for block in shell:
        print(f"== {block.where} (shell, from the clone's root)", flush=True)
        done = subprocess.run(["bash", "-e", "-c", block.code], cwd=REPO, text=True, capture_output=True, timeout=900)
        if done.returncode != 0:
            sys.exit(f"{block.where} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return len(shell)


def main() -> None:
    ran = sum(try_page(page) for page in PAGES)
    print(f"newcomer pages OK ({ran} shell blocks from the clone's root; no hidden setup)")


if __name__ == "__main__":
    main()
