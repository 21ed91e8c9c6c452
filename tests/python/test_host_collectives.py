"""pld.tensor.* host collectives of compiled @pl.jit.host orchestrators (allreduce mesh and ring, barrier,
broadcast, allgather, reduce_scatter, all_to_all) run the engine's credit-barrier collectives on windows:
host_collectives_ranks.py checks them against torch on every rank, and their signals zero afterwards, under mpirun
with 2 and 3 ranks, in a subprocess (MPI never starts inside pytest). test_host_collective_errors.py checks what
they refuse."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")

SCRIPT = Path(__file__).resolve().parent / "host_collectives_ranks.py"


@pytest.mark.parametrize("ranks", [2, 3])
def test_host_collectives_give_torchs_answers_and_leave_signals_zero(ranks, tmp_path):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", PYPTO_RANK_OUTPUT="all",
               PYPTO_COMM_TIMEOUT_S=os.environ.get("PYPTO_COMM_TIMEOUT_S", "60"),
               PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    done = subprocess.run(["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks), sys.executable,
                           str(SCRIPT)], capture_output=True, text=True, env=env, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr[-6000:]
    for r in range(ranks):
        assert f"rank {r} of {ranks} ok" in done.stdout, done.stdout + done.stderr[-6000:]
