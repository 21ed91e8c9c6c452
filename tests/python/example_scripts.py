"""The examples under examples/, and running one as a user does: in its own process, with the compile output in a
temporary folder, optionally under a harness script that checks what it does (`harness.py example.py`)."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Single-device examples; the distributed ones (examples/distributed/) start several rank processes and are run by
# tests/python/distributed/.
EXAMPLES = sorted(p for p in (ROOT / "examples").glob("*/[0-9]*.py") if p.parent.name != "distributed")
DISTRIBUTED_EXAMPLES = sorted((ROOT / "examples" / "distributed").glob("[0-9]*.py"))
# Examples that make no @pl.jit call: they compile a @pl.program of hand-written kernels with ir.compile, so the
# harnesses that check each @pl.jit call (bisect, torch script against the simulator) have nothing to hook; they
# only have to run to their end under them.
NO_JIT_CALL = {"intermediate/10_manual_pipe"}


def example_id(example: Path) -> str:
    return f"{example.parent.name}/{example.stem}"


def run_example(example: Path, tmp_path: Path, *, harness: Path | None = None,
                timeout: int = 100) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    command = [sys.executable, *([str(harness)] if harness else []), str(example)]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)
