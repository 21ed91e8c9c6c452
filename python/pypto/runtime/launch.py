"""Starting a distributed PyPTO program's ranks: one OS process per rank, through Open MPI's ``mpirun``.

Three ways in, one rule (each rank runs the whole script, SPMD):

* ``python3 script.py``: the first ``@pl.jit.host`` call of a script not started by a launcher
  replaces the process with ``mpirun -np P python3 script.py ...`` (P from the call's
  ``DistributedConfig``); the ranks run the script again from the top with their standard output
  silenced until that call, so what the script printed before it appears once.
* ``pypto launch -n P [--hostfile H] script.py ...``: the same ``mpirun`` command, across hosts.
* plain ``mpirun -np P python3 script.py``: works too; as root, Open MPI's run-as-root variables
  must then be set by hand (``pypto launch`` sets them).

After the engine starts, only rank 0 keeps its standard output (``PYPTO_RANK_OUTPUT=all`` keeps
every rank's); standard error is every rank's.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence

SPAWNED_ENV = "PYPTO_DIST_SPAWNED"  # set for ranks this module started from a plain `python3 script.py`
RANK_OUTPUT_ENV = "PYPTO_RANK_OUTPUT"
DEFAULT_WORLD_SIZE = 4

# Environment variables a launcher sets in each rank; their presence means "already launched".
_LAUNCHER_SIZE_VARS = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE")
# Forwarded to ranks on other hosts (local ranks inherit the whole environment anyway).
_FORWARDED_PREFIXES = ("PYPTO_", "PYTHON", "OMP_", "LD_LIBRARY_PATH", "PATH", "VIRTUAL_ENV")


class LaunchError(RuntimeError):
    """The ranks cannot be started; the message says why and what to run instead."""


def launched_size() -> int | None:
    """The world size a launcher (mpirun, pypto launch) gave this process, or None when it was started plainly."""
    for name in _LAUNCHER_SIZE_VARS:
        value = os.environ.get(name)
        if value:
            return int(value)
    return None


def mpirun_command(ranks: int, program: Sequence[str], hostfile: str | None = None,
                   extra: Sequence[str] = ()) -> list[str]:
    """``mpirun`` running ``program`` as ``ranks`` processes: oversubscribing the cores (a rank is a process
    whatever the core count), unbound (each rank runs several simulator threads), forwarding PyPTO's and
    Python's environment to other hosts."""
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        raise LaunchError("distributed programs start their ranks with Open MPI's mpirun, which is not installed: "
                          "run scripts/setup.sh (it installs openmpi-bin and libopenmpi-dev)")
    if ranks < 1:
        raise LaunchError(f"a distributed program needs at least 1 rank, got {ranks}")
    command = [mpirun, "-np", str(ranks), "--oversubscribe", "--bind-to", "none"]
    if hostfile is not None:
        if not os.path.isfile(hostfile):
            raise LaunchError(f"hostfile {hostfile!r} does not exist; it lists one host per line, e.g. "
                              "'localhost slots=2'")
        command += ["--hostfile", hostfile]
    for name in sorted(os.environ):
        if name.startswith(_FORWARDED_PREFIXES):
            command += ["-x", name]
    return command + list(extra) + list(program)


def launcher_environment() -> dict[str, str]:
    """This process's environment plus what Open MPI needs to run as root (as CI does)."""
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def _script_command() -> list[str]:
    """How this process was started, to start it again in each rank."""
    argv = list(getattr(sys, "orig_argv", []))[1:]
    if not argv or argv[0] in ("-c", "-i") or sys.flags.interactive or "pytest" in sys.modules:
        raise LaunchError(
            "this process cannot start its own ranks: it is not a script run as `python3 script.py` (an "
            "interactive session, `python -c` or a test runner). Put the program in a script and run it with "
            "`python3 script.py` or `pypto launch -n P script.py`")
    return [sys.executable, *argv]


def relaunch(ranks: int, hostfile: str | None = None) -> None:
    """Replaces this process by ``mpirun`` running this script as ``ranks`` ranks; does not return."""
    command = mpirun_command(ranks, _script_command(), hostfile, extra=["-x", SPAWNED_ENV])
    env = launcher_environment()
    env[SPAWNED_ENV] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    os.execvpe(command[0], command, env)


def silence_until_started() -> None:
    """In a rank this module spawned: the script already printed its output up to the first distributed call
    in the starting process, so the rank's standard output stays silent until then."""
    if os.environ.get(SPAWNED_ENV) == "1" and not isinstance(sys.stdout, _Silenced):
        sys.stdout = _Silenced(sys.stdout)


def keep_rank_output(rank: int) -> None:
    """After the engine starts: rank 0 prints, the others are silent unless PYPTO_RANK_OUTPUT=all."""
    original = sys.stdout.original if isinstance(sys.stdout, _Silenced) else sys.stdout
    if rank == 0 or os.environ.get(RANK_OUTPUT_ENV) == "all":
        sys.stdout = original
    elif not isinstance(sys.stdout, _Silenced):
        sys.stdout = _Silenced(original)


class _Silenced:
    """A standard output that drops what is written to it, remembering the real one."""

    def __init__(self, original) -> None:
        self.original = original

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return self.original.fileno()
