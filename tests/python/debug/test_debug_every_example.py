"""Bisection works on every example: bisect_every_example.py runs `pypto.debug.bisect` on each kernel call an
example makes (in its own process, as a user runs it), and on our pipeline no pass changes the numbers, no stage is
skipped and the final torch script agrees with the simulator."""

from pathlib import Path

import pytest

from example_scripts import EXAMPLES, NO_JIT_CALL, example_id, run_example

HARNESS = Path(__file__).with_name("bisect_every_example.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_bisect_finds_no_divergence_in_the_example(example, tmp_path):
    done = run_example(example, tmp_path, harness=HARNESS)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    assert done.stdout.strip().endswith("OK"), done.stdout
    bisected = any(line.startswith("BISECT ") for line in done.stdout.splitlines())
    assert bisected != (example_id(example) in NO_JIT_CALL), done.stdout
