"""Running a distributed script as a user does: `python script.py --ranks N` (it starts its own ranks through
mpirun), or `pypto launch ...`, in its own process with the compile output in a temporary folder."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"


def require_mpirun() -> None:
    """Setup installs Open MPI; a machine without it fails these tests loudly rather than skipping them."""
    if shutil.which("mpirun") is None:
        pytest.fail("Open MPI's mpirun is not installed: run scripts/setup.sh (openmpi-bin, libopenmpi-dev)")


def run(command: list[str], tmp_path: Path, *, timeout: int = 120, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess:
    require_mpirun()
    full_env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    full_env.pop("PYPTO_RANK_OUTPUT", None)
    full_env.update(env or {})
    return subprocess.run(command, cwd=tmp_path, env=full_env, capture_output=True, text=True, timeout=timeout)


def run_script(script: Path, tmp_path: Path, *args: str, **kwargs) -> subprocess.CompletedProcess:
    return run([sys.executable, str(script), *args], tmp_path, **kwargs)


def pypto_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "pypto.cli", *args]


def describe(done: subprocess.CompletedProcess) -> str:
    return f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr[-6000:]}"
