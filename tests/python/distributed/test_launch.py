"""`pypto launch -n P [--hostfile H] script.py args`: the launcher's rank count wins over the script's
DistributedConfig, a hostfile spreads the ranks over the hosts it names, and --dry-run prints the mpirun command."""

import os
import sys

import pytest

from dist_runner import describe, pypto_command, require_mpirun, run
from example_scripts import ROOT

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")

HELLO = ROOT / "examples" / "distributed" / "01_hello_rank.py"


def test_launch_on_two_hosts_from_a_hostfile(tmp_path):
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost\nlocalhost\n")
    # --ranks 2 sizes the script's tensors; the launcher starts the 2 ranks on the hostfile's two "hosts".
    done = run(pypto_command("launch", "-n", "2", "--hostfile", str(hostfile), str(HELLO), "--ranks", "2"),
               tmp_path, timeout=120)
    assert done.returncode == 0, describe(done)
    assert "2 ranks, first column of each row: [0.0, 1.0]" in done.stdout, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)


def test_the_launchers_rank_count_wins(tmp_path):
    # The script asks for 3 ranks (DistributedConfig(world_size=3)) but is launched on 2: the orchestrator runs on
    # 2 and the script's own check of 3 rows fails on every rank, so the job ends non-zero.
    done = run(pypto_command("launch", "-n", "2", str(HELLO), "--ranks", "3"), tmp_path, timeout=120)
    assert done.returncode != 0, describe(done)
    assert "of 2 failed" in done.stderr, describe(done)


def test_dry_run_prints_the_mpirun_command(tmp_path):
    require_mpirun()
    hostfile = tmp_path / "hosts"
    hostfile.write_text("localhost slots=2\n")
    done = run(pypto_command("launch", "-n", "3", "--hostfile", str(hostfile), "--dry-run", str(HELLO), "--ranks", "3"),
               tmp_path, timeout=60, env={"PYPTO_COMM_TIMEOUT_S": "5"})
    assert done.returncode == 0, describe(done)
    words = done.stdout.split()
    assert os.path.basename(words[0]) == "mpirun"
    assert words[1:3] == ["-np", "3"]
    assert "--oversubscribe" in words and "--hostfile" in words and str(hostfile) in words
    assert ["-x", "PYPTO_COMM_TIMEOUT_S"] == words[words.index("PYPTO_COMM_TIMEOUT_S") - 1:
                                                   words.index("PYPTO_COMM_TIMEOUT_S") + 1]
    assert [os.path.realpath(words[-4]), *words[-3:]] == [os.path.realpath(sys.executable), str(HELLO), "--ranks", "3"]


def test_a_missing_hostfile_is_an_error(tmp_path):
    done = run(pypto_command("launch", "-n", "2", "--hostfile", str(tmp_path / "nope"), "--dry-run", str(HELLO)),
               tmp_path, timeout=60)
    assert done.returncode == 2
    assert "pypto launch: hostfile" in done.stderr and "does not exist" in done.stderr
