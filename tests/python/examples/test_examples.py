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


# What a kernel may not contain to compile against the real <pto/pto-inst.hpp>: PyPTO's former dialect.
NOT_PTO_ISA = ("TileVec<", "TileMat<", "Loc{", "#include \"pypto/isa/isa.h\"", "kernel_abi.h", "PyptoRtCoreContext")
# Kernels that still use PyPTO's own cross-core pipe and comm instructions (docs/isa.md lists them).
OWN_INSTRUCTIONS = ("TPUSH_TO_", "TPOP_FROM_", "TFREE_TO_", "INITIALIZE_PIPE", "pypto/isa/comm.h")


def assert_kernels_are_pto_isa(build_output: Path) -> None:
    """Every kernel the example generated is PTO-ISA C++ with the Ascend entry point (kernel_args.h)."""
    kernels = sorted(build_output.rglob("kernels/*/*.cpp"))
    assert kernels, f"no kernel written under {build_output}"
    for kernel in kernels:
        text = kernel.read_text()
        assert "#include <pto/pto-inst.hpp>" in text, kernel
        assert 'extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args)' in text, kernel
        assert not [s for s in NOT_PTO_ISA if s in text], (kernel, [s for s in NOT_PTO_ISA if s in text])
        if not any(s in text for s in OWN_INSTRUCTIONS):
            assert "pypto/isa/" not in text, kernel


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_example_runs_and_matches_torch(example, tmp_path):
    done = run_example(example, tmp_path)
    assert done.returncode == 0, f"{example.name} failed:\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().endswith("OK"), done.stdout
    assert_kernels_are_pto_isa(tmp_path / "build_output")


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
