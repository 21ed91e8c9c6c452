"""Both debugging tools on every kernel call and compile for arguments an example makes (see `install`).

* `pypto.debug.bisect` compiles the kernel with every pass dumped, runs the torch script of each dump and the
  simulator on the same inputs, and reports the first pass that changes the numbers. On a correct pipeline there
  is none, no stage is skipped (a dump with no script fails too: every stage of every example must be checkable)
  and the final script agrees with the simulator: `BISECT <kernel> ok (<n> stages)`. It runs once per
  specialization: the passes see the same program on every call of it.
* torch_compare.compare_call runs the torch script of the program right after parsing and after the full pipeline
  against the simulator, argument by argument, on every call: `MATCH <kernel> parsed` and `MATCH <kernel> lowered`.
Any difference prints the report and exits non-zero. The tools' own runs happen inside `around_checks()`.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from typing import Any, ContextManager

from torch_compare import compare_call, entry_args

from pypto.debug import bisect
from pypto.jit.function import JITFunction

_bisected: set[Any] = set()


def bisect_call(kernel: JITFunction, args: tuple[Any, ...], config: Any, kwargs: dict[str, Any]) -> None:
    key = (kernel, kernel.specialize(*args, **kwargs).key)
    if key in _bisected:
        return
    _bisected.add(key)
    with tempfile.TemporaryDirectory() as dump_dir:
        report = bisect(kernel, *args, config=config, dump_dir=dump_dir, **kwargs)
        if not report.ok or report.skipped or not report.simulated:
            print(report)
            raise SystemExit(f"bisect of {kernel.__name__} did not come out clean")
        print(f"BISECT {kernel.__name__} ok ({len(report.stages)} stages)")


def install(around_checks: Callable[[], ContextManager[Any]] = contextlib.nullcontext) -> None:
    call, compile_ = JITFunction.__call__, JITFunction.compile

    def checked_call(self: JITFunction, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        with around_checks():
            bisect_call(self, args, config, kwargs)
            compare_call(self, args, lambda a: call(self, *a, config=config))
        return call(self, *args, config=config, **kwargs)

    def checked_compile(self: JITFunction, *args: Any, config: Any = None, **kwargs: Any) -> Any:
        if args:  # a compile for sample arguments: what a later run of the compiled program gets
            with around_checks():
                bisect_call(self, args, config, kwargs)
        compiled = compile_(self, *args, config=config, **kwargs)
        if args:
            with around_checks():
                compare_call(self, args, lambda a: compiled(*entry_args(compiled.program, self, a)))
        return compiled

    JITFunction.__call__, JITFunction.compile = checked_call, checked_compile
