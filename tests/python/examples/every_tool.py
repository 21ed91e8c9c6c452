"""Runs an example with every checking tool on every kernel call it makes, in one process:

    python every_tool.py examples/<folder>/<example>.py

* bisection and the torch-script comparison (debug/bisect_and_compare.py) on each call and each compile for sample
  arguments, before the call runs: `BISECT <kernel> ok (<n> stages)`, `MATCH <kernel> parsed|lowered`;
* the example's own runs of its compiled programs traced with every runtime DFX output on, and those outputs
  checked against each other and drawn (tools/dfx_checks.py): `DFX <entry> ok (<n> kernel slices)`.
The tools' own runs of a kernel are not traced. Any difference exits non-zero; otherwise the example ends as it
does alone (with OK).
"""

import runpy
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "debug"), str(TESTS / "tools")]

import bisect_and_compare  # noqa: E402
import dfx_checks  # noqa: E402


def main(example: str) -> None:
    dfx_checks.install()
    bisect_and_compare.install(around_checks=dfx_checks.paused)
    sys.argv = [example]
    runpy.run_path(example, run_name="__main__")


if __name__ == "__main__":
    main(str(Path(sys.argv[1]).resolve()))
