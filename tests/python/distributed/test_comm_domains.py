"""Comm domains: a kernel and the host collectives run by world ranks 1 and 2 on windows allocated with
members=[1, 2] (domain ranks 0 and 1), while rank 0 works in a domain of its own; checked against torch."""

import pytest

from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


@pytest.mark.parametrize("ranks", [3, 4])
def test_ranks_one_and_two_run_a_kernel_in_their_domain(tmp_path, ranks):
    done = run_script(PROGRAMS / "comm_domains.py", tmp_path, "--ranks", str(ranks), timeout=180)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
