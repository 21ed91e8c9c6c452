"""Every example under examples/distributed/ runs at 2, 3 and 4 ranks (`python example.py --ranks N`), checks every
rank's result against torch, and prints OK once (only rank 0's standard output is shown)."""

import pytest

from dist_runner import describe, run_script
from example_scripts import DISTRIBUTED_EXAMPLES, example_id


def test_the_distributed_examples_are_there():
    names = [p.stem for p in DISTRIBUTED_EXAMPLES]
    assert names == ["01_hello_rank", "02_programming_model", "03_window_buffer", "04_barrier",
                     "05_remote_load_store", "06_put_get", "07_dynamic_rank_count", "08_data_parallel_mlp",
                     "09_defer_wait"]


@pytest.mark.parametrize("ranks", [2, 3, 4])
@pytest.mark.parametrize("example", DISTRIBUTED_EXAMPLES, ids=example_id)
def test_example_runs_on_ranks(example, ranks, tmp_path):
    done = run_script(example, tmp_path, "--ranks", str(ranks), timeout=180)
    assert done.returncode == 0, describe(done)
    assert done.stdout.count("OK") == 1, describe(done)
    assert done.stdout.strip().endswith("OK"), describe(done)
