"""The torch script of every example computes what the simulator computes, on the same inputs.

Each example runs in its own process (as test_examples.py runs them) under
torch_compare.py, which checks every kernel call it makes: the script of the
program right after parsing and of the program after the full pipeline
against the simulator, argument by argument (tolerance per dtype; integers
exact).
"""

from pathlib import Path

import pytest

from example_scripts import EXAMPLES, NO_JIT_CALL, example_id, run_example

HARNESS = Path(__file__).with_name("torch_compare.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_torch_script_matches_simulator(example, tmp_path):
    done = run_example(example, tmp_path, harness=HARNESS)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    matches = [line for line in done.stdout.splitlines() if line.startswith("MATCH ")]
    if example_id(example) in NO_JIT_CALL:
        assert not matches and done.stdout.strip().endswith("OK"), done.stdout
        return
    assert any(m.endswith(" parsed") for m in matches) and any(m.endswith(" lowered") for m in matches), done.stdout
