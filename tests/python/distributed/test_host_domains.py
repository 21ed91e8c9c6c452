"""The comm domains MaterializeCommDomainScopes finds, run for real: a host orchestrator whose buffers are
dispatched to devices {0, 1} and {1, 2}; kernels see their rank in their window's domain and a host allreduce runs
inside {1, 2} only (programs/host_domains.py checks the numbers)."""

import pytest

from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


@pytest.mark.parametrize("ranks", [3, 4])
def test_a_host_orchestrator_runs_two_domains(tmp_path, ranks):
    done = run_script(PROGRAMS / "host_domains.py", tmp_path, "--ranks", str(ranks), timeout=180)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
