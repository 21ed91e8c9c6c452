"""Follows the pages a newcomer reads first the way the pages say, from the root of this clone.

CI runs it on a fresh clone after `make test` (which is what Installation's first command does): each
runnable shell block of the page runs as written from the clone's root, and the page's python blocks,
copied in order into one file as the Quickstart tells the reader to, run with .venv/bin/python. Unlike the
docs runner in the test suite, nothing is prepared: no temporary folder, no links, no setup code.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "python"))
from docs_manual import blocks, setups  # noqa: E402  (the one reader of the markers)

PAGES = ["installation.md", "quickstart.md", "programming-model.md"]


def _run(command: list[str], what: str) -> None:
    print(f"== {what}", flush=True)
    done = subprocess.run(command, cwd=REPO, text=True, capture_output=True, timeout=900)
    if done.returncode != 0:
        sys.exit(f"{what} failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")


def try_page(page: str, folder: Path) -> None:
    assert not setups(page), f"docs/{page} has hidden setup code: a newcomer would not see it"
    page_blocks = [b for b in blocks(page) if b.runs_here]
    for block in (b for b in page_blocks if b.lang != "python"):
        _run(["bash", "-e", "-c", block.code], f"{block.where} (shell, from the clone's root)")
    python = [b.code for b in page_blocks if b.lang == "python"]
    if python:
        script = folder / (Path(page).stem.replace("-", "_") + ".py")
        script.write_text("\n\n".join(python))
        _run([str(REPO / ".venv" / "bin" / "python"), str(script)], f"docs/{page}: its python blocks as one file")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        for page in PAGES:
            try_page(page, Path(folder))
    print("newcomer pages OK")


if __name__ == "__main__":
    main()
