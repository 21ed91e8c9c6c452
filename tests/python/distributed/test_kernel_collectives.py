"""The kernel (InCore composite) collectives at 2, 3 and 4 ranks, checked against torch on every rank."""

import pytest

from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_kernel_collectives_match_torch(tmp_path, ranks):
    done = run_script(PROGRAMS / "kernel_collectives.py", tmp_path, "--ranks", str(ranks), timeout=180)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
