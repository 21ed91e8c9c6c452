"""Every example under examples/distributed/ runs (`python example.py --ranks N`), checks every rank's result
against torch, and prints OK once (only rank 0's standard output is shown).

Each example runs at 3 ranks: odd, and not a power of two, so rank arithmetic that only works for pairs fails here.
The example written for any rank count (07) also runs at 2 and 4 (4 is every example's default)."""

import pytest

from dist_runner import describe, run_script
from example_scripts import DISTRIBUTED_EXAMPLES, example_id

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


def test_the_distributed_examples_are_there():
    names = [p.stem for p in DISTRIBUTED_EXAMPLES]
    assert names == ["01_hello_rank", "02_programming_model", "03_window_buffer", "04_barrier",
                     "05_remote_load_store", "06_put_get", "07_dynamic_rank_count", "08_data_parallel_mlp",
                     "09_defer_wait"]


ANY_RANK_COUNT = next(p for p in DISTRIBUTED_EXAMPLES if p.stem == "07_dynamic_rank_count")
RUNS = [(example, 3) for example in DISTRIBUTED_EXAMPLES] + [(ANY_RANK_COUNT, 2), (ANY_RANK_COUNT, 4)]


@pytest.mark.parametrize("example, ranks", RUNS, ids=[f"{example_id(e)}-{r}" for e, r in RUNS])
def test_example_runs_on_ranks(example, ranks, tmp_path):
    done = run_script(example, tmp_path, "--ranks", str(ranks), timeout=100)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
    assert done.stdout.strip().endswith("OK"), describe(done)
