"""pld.tensor.all_to_all_v (kernel composite and host builtin) at 2 and 3 ranks, checked against torch on every
rank."""

import pytest

from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


@pytest.mark.parametrize("ranks", [2, 3])
def test_all_to_all_v_matches_torch(tmp_path, ranks):
    done = run_script(PROGRAMS / "all_to_all_v.py", tmp_path, "--ranks", str(ranks), timeout=180)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
