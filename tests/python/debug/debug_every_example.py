"""Runs an example with `pypto.debug.bisect` on every kernel call and compile for arguments it makes (see main).

Bisect compiles the kernel with every pass dumped, runs the torch script of each dump and the simulator on the
same inputs, and reports the first pass that changes the numbers. On a correct pipeline there is none, and the
final script agrees with the simulator: each call prints `BISECT <kernel> ok (<n> stages)`, or the report and a
non-zero exit. Skipped stages (a dump with no script) fail too: every stage of every example must be checkable.
"""

from __future__ import annotations

import runpy
import sys
import tempfile
from pathlib import Path
from typing import Any

from pypto.debug import bisect
from pypto.jit.function import JITFunction


def check(kernel: JITFunction, args: tuple[Any, ...], config: Any, kwargs: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as dump_dir:
        report = bisect(kernel, *args, config=config, dump_dir=dump_dir, **kwargs)
        if not report.ok or report.skipped or not report.simulated:
            print(report)
            raise SystemExit(f"bisect of {kernel.__name__} did not come out clean")
        print(f"BISECT {kernel.__name__} ok ({len(report.stages)} stages)")


def main(example: str) -> None:
    call, compile_ = JITFunction.__call__, JITFunction.compile

    def bisected_call(self: JITFunction, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        check(self, args, config, kwargs)
        return call(self, *args, config=config, **kwargs)

    def bisected_compile(self: JITFunction, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        if args:  # a compile for sample arguments: what a later run of the compiled program gets
            check(self, args, config, kwargs)
        return compile_(self, *args, config=config, **kwargs)

    JITFunction.__call__, JITFunction.compile = bisected_call, bisected_compile
    sys.argv = [example]
    runpy.run_path(example, run_name="__main__")


if __name__ == "__main__":
    main(str(Path(sys.argv[1]).resolve()))
