"""Runs a program's torch script and the simulator on the same inputs and compares what they write.

Used by the tests of this folder: `compare_call` for one kernel call, and
debug_every_example.py for every kernel call an example makes.
"""

from __future__ import annotations

from typing import Any

import torch

from pypto.debug import load_torch_script, torch_codegen
from pypto.jit.function import JITFunction

# (rtol, atol) per dtype of what is compared; integers and bools must be equal.
TOLERANCES = {
    torch.float32: (1e-4, 1e-4),
    torch.float64: (1e-9, 1e-9),
    torch.float16: (2e-3, 2e-3),
    torch.bfloat16: (1.6e-2, 1e-2),
}
STAGES = ("parsed", "lowered")


def clone_args(args: tuple[Any, ...]) -> list[Any]:
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def program_at(kernel: JITFunction, stage: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """The kernel's program right after parsing or after the full pipeline."""
    if stage == "parsed":
        return kernel._parse(kernel.specialize(*args, **kwargs))
    return kernel.lower(*args, **kwargs)


def entry_args(program: Any, kernel: JITFunction, args: list[Any]) -> list[Any]:
    """The arguments of the script's entry: the kernel's, less the scalars folded into the program."""
    script = load_torch_script(torch_codegen(program))
    names = [name for name, *_ in script.PARAMS]
    by_name = dict(zip(kernel.param_names, args))
    return [by_name[name] for name in names]


def run_torch_script(program: Any, kernel: JITFunction, args: list[Any]) -> list[Any]:
    """The arguments after the torch script's entry ran on them (Out arguments written in place)."""
    script = load_torch_script(torch_codegen(program))
    script.ENTRY(*entry_args(program, kernel, args))
    return args


def assert_same(label: str, simulated: Any, scripted: Any) -> None:
    if not isinstance(simulated, torch.Tensor):
        return
    if simulated.dtype in TOLERANCES:
        rtol, atol = TOLERANCES[simulated.dtype]
        torch.testing.assert_close(scripted, simulated, rtol=rtol, atol=atol, equal_nan=True, msg=lambda m: f"{label}: {m}")
    else:
        assert torch.equal(scripted, simulated), f"{label}: the torch script differs from the simulator"


def compare_call(kernel: JITFunction, args: tuple[Any, ...], simulate: Any, label: str = "") -> None:
    """Runs `simulate(args)` (the simulator) and the torch script of each stage on clones of `args`; they must agree."""
    scripted = {}
    for stage in STAGES:
        program = program_at(kernel, stage, args, {})
        scripted[stage] = run_torch_script(program, kernel, clone_args(args))
    simulated = clone_args(args)
    simulate(simulated)
    for stage in STAGES:
        for name, sim, ours in zip(kernel.param_names, simulated, scripted[stage]):
            assert_same(f"{label or kernel.__name__} ({stage}) argument '{name}'", sim, ours)
        print(f"MATCH {kernel.__name__} {stage}")
