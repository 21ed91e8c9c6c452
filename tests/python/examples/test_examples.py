"""Every example under examples/ runs on a2a3sim, checks itself against torch and prints OK; and every checking
tool agrees with the simulator on every kernel call it makes.

Each example runs in its own process, as a user runs it, with the compile output in a temporary folder: once
alone, and once under every_tool.py, which bisects and compares the torch scripts on every call and traces every
run with all runtime DFX outputs on (two runs in all: the kernels compile once, into the shared object cache).
"""

from pathlib import Path

import pytest

from example_scripts import EXAMPLES, NO_JIT_CALL, example_id, run_example

EVERY_TOOL = Path(__file__).with_name("every_tool.py")


def test_every_example_folder_has_examples():
    folders = {p.parent.name for p in EXAMPLES}
    assert {"beginner", "intermediate", "models", "runtime"} <= folders


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_example_runs_and_matches_torch(example, tmp_path):
    done = run_example(example, tmp_path)
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().endswith("OK"), done.stdout


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_every_tool_agrees_with_the_simulator_on_the_example(example, tmp_path):
    """Bisection finds no pass that changes the numbers and skips no stage; the torch scripts of the parsed and the
    lowered program agree with the simulator; every DFX output of every run checks out and draws."""
    done = run_example(example, tmp_path, harness=EVERY_TOOL)
    assert done.returncode == 0, f"{example.name}:\n{done.stdout[-4000:]}\n{done.stderr[-5000:]}"
    assert done.stdout.strip().endswith("OK"), done.stdout
    lines = done.stdout.splitlines()
    bisected = [line for line in lines if line.startswith("BISECT ")]
    matches = [line for line in lines if line.startswith("MATCH ")]
    traced = [line for line in lines if line.startswith("DFX ")]
    assert traced and all(line.endswith("kernel slices)") for line in traced), done.stdout
    if example_id(example) in NO_JIT_CALL:
        assert not bisected and not matches, done.stdout
        return
    assert bisected, done.stdout
    assert any(m.endswith(" parsed") for m in matches) and any(m.endswith(" lowered") for m in matches), done.stdout
