"""Both debugging tools work on every example, in one run of it: debug_every_example.py runs the example (in its
own process, as a user runs it) with `pypto.debug.bisect` and the torch-script comparison on each kernel call it
makes. On our pipeline no pass changes the numbers, no bisect stage is skipped, and the torch scripts of the
parsed and the lowered program agree with the simulator."""

from pathlib import Path

import pytest

from example_scripts import EXAMPLES, NO_JIT_CALL, example_id, run_example

HARNESS = Path(__file__).with_name("debug_every_example.py")


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_bisect_and_torch_scripts_agree_with_the_simulator(example, tmp_path):
    done = run_example(example, tmp_path, harness=HARNESS)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-4000:]}\n{done.stderr[-5000:]}"
    assert done.stdout.strip().endswith("OK"), done.stdout
    lines = done.stdout.splitlines()
    bisected = [line for line in lines if line.startswith("BISECT ")]
    matches = [line for line in lines if line.startswith("MATCH ")]
    if example_id(example) in NO_JIT_CALL:
        assert not bisected and not matches, done.stdout
        return
    assert bisected, done.stdout
    assert any(m.endswith(" parsed") for m in matches) and any(m.endswith(" lowered") for m in matches), done.stdout
