"""Every runtime DFX tool works on every example: each example runs (in its own process, as a user runs it) with
the swimlanes, the PMU report, the dependency graph, scope statistics and a full argument dump on for every kernel
run, and dfx_every_example.py checks those outputs against each other, draws both swimlanes with the offline
viewer and draws the program's memory map."""

from pathlib import Path

import pytest

from example_scripts import EXAMPLES, example_id, run_example

HARNESS = Path(__file__).with_name("dfx_every_example.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_every_dfx_output_of_the_example_checks_out(example, tmp_path):
    done = run_example(example, tmp_path, harness=HARNESS)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    checked = [line for line in done.stdout.splitlines() if line.startswith("DFX ")]
    assert checked and all(line.endswith("kernel slices)") for line in checked), done.stdout
    assert done.stdout.strip().endswith("OK"), done.stdout
