"""Bisection works on every example: bisect_every_example.py runs `pypto.debug.bisect` on each kernel call an
example makes (in its own process, as a user runs it), and on our pipeline no pass changes the numbers, no stage is
skipped and the final torch script agrees with the simulator."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/[0-9]*.py"))
HARNESS = Path(__file__).with_name("bisect_every_example.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_bisect_finds_no_divergence_in_the_example(example, tmp_path):
    env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    done = subprocess.run([sys.executable, str(HARNESS), str(example)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert done.stdout.strip().endswith("OK"), done.stdout
    assert any(line.startswith("BISECT ") for line in done.stdout.splitlines()), done.stdout
