"""Every example under examples/ runs on a2a3sim, checks itself against torch and prints OK.

Each runs in its own process, as a user runs it, with the compile output and
the object cache in a temporary folder.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/[0-9]*.py"))


def test_every_example_folder_has_examples():
    folders = {p.parent.name for p in EXAMPLES}
    assert {"beginner", "intermediate", "models", "runtime"} <= folders


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_example_runs_and_matches_torch(example, tmp_path):
    env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    done = subprocess.run([sys.executable, str(example)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().endswith("OK"), done.stdout
