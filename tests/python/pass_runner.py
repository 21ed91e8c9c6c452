"""Runs one pass over a program the way the printed-IR cases and the pass pages do.

The one-pass pipeline declares for its input every property the pass requires
(plus SSAForm, which the front end guarantees), so a case only has to be a
program that really has them; verification runs before and after the pass.
"""

from pathlib import Path

import yaml

from pypto import ir, passes

DEFAULT_PLATFORM = "a2a3sim"


def input_properties(pass_name: str, extra: list[str] | None = None) -> list[str]:
    """SSAForm, what `pass_name` requires and `extra`, each once, in that order."""
    names = ["SSAForm", *passes.pass_properties(pass_name)["required"], *(extra or [])]
    return list(dict.fromkeys(names))


def run_one_pass(pass_name: str, program: ir.Program, work_dir: Path, options: dict | None = None,
                 platform: str = DEFAULT_PLATFORM, extra_properties: list[str] | None = None,
                 instruments: list | None = None) -> ir.Program:
    step = {"name": pass_name}
    if options:
        step["options"] = options
    pipeline = work_dir / "one_pass.yaml"
    properties = input_properties(pass_name, extra_properties)
    pipeline.write_text(yaml.safe_dump({"name": "one_pass", "input_properties": properties, "verify": True,
                                        "passes": [step]}))
    return passes.PassManager(str(pipeline)).run(program, platform=platform, instruments=instruments or [])
