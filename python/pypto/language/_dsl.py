"""The DSL's intrinsics (``pl.range``, ``pl.yield_``, ``pl.at``, ...) and decorators.

Intrinsics are markers: the parser recognises them by identity and builds IR; calling one as
ordinary Python raises, because a kernel body is never executed.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import Callable

from pypto import ir
from pypto.language._ops import kernel_only


class Intrinsic:
    """A DSL construct the parser understands (``pl.range``, ``pl.yield_``, ...)."""

    def __init__(self, name: str, doc: str) -> None:
        self.name = name
        self.__doc__ = doc

    def __call__(self, *args, **kwargs):
        raise kernel_only(f"pl.{self.name}")

    def __repr__(self) -> str:
        return f"<pl.{self.name}>"


INTRINSICS = {
    name: Intrinsic(name, doc)
    for name, doc in {
        "range": "pl.range(stop) / pl.range(start, stop, step=1, init_values=(...)): a sequential loop",
        "parallel": "pl.parallel(...): a loop whose iterations are independent",
        "unroll": "pl.unroll(...): a loop unrolled at compile time (literal bounds)",
        "pipeline": "pl.pipeline(..., stage=N): a software-pipelined loop",
        "while_": "for (a,) in pl.while_(init_values=(x,)): a loop whose first statement is pl.cond(...)",
        "cond": "pl.cond(c): the condition of the enclosing pl.while_ loop; its first statement",
        "yield_": "v = pl.yield_(x): the next value of a loop-carried value, or an if's result",
        "const": "pl.const(value, dtype): a literal of a given dtype",
        "cast": "pl.cast(x, dtype): convert a scalar, tensor or tile to another dtype",
        "min": "pl.min(a, b): the smaller of two scalars",
        "max": "pl.max(a, b): the larger of two scalars",
        "xor": "pl.xor(a, b): logical exclusive or of two scalars",
        "at": "with pl.at(level=..., deps=[...]): a placement region; at CORE_GROUP one task, named by `as tid`",
        "spmd": "pl.spmd(n): one task fanned over n blocks (for form, or with form named by `as tid`)",
        "cluster": "with pl.cluster(): co-schedule cube and vector kernels",
        "manual_scope": "with pl.manual_scope(): a region where only deps= order tasks (no derived dependencies)",
        "func_attr": "pl.func_attr({...}): function attributes; the first statement of a body",
        "split": "pl.split(pl.SplitMode.UP_DOWN): the mixed-kernel split optimization of pl.at",
        "split_aiv": "for lane in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN): the vector code of a hand-split "
                     "mixed kernel, run by both AIV lanes",
        "cross_core_slot": "pl.cross_core_slot(slot_num=N): the depth of a mixed kernel's cross-core rings "
                           "(default 2), in pl.at's optimizations",
        "submit": "r, tid = pl.submit(self.k, *args, deps=[...]): launch a kernel as a task and name it",
        "spmd_submit": "r, tid = pl.spmd_submit(self.k, *args, core_num=N, sync_start=False, deps=[...]): "
                       "launch a kernel over N blocks as one task",
        "no_dep": "self.k(pl.no_dep(t), ...): the runtime does not order this task by tensor t",
    }.items()
}


@dataclass
class FunctionSpec:
    """A function decorated with ``@pl.function`` inside a ``@pl.program`` class, waiting for the
    class so that calls between methods can resolve."""

    fn: Callable
    func_type: ir.FunctionType = ir.FunctionType.Opaque
    level: ir.Level | None = None
    role: ir.Role | None = None
    external_source: str | None = None
    attrs: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.fn.__name__


class InlineFunction:
    """``@pl.inline``: a helper whose body is spliced into each caller."""

    def __init__(self, fn: Callable) -> None:
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def __call__(self, *args, **kwargs):
        raise kernel_only(f"the inline function {self.fn.__name__}")


def _is_method(fn: Callable) -> bool:
    params = list(inspect.signature(fn).parameters)
    return bool(params) and params[0] == "self"


def function(fn: Callable | None = None, *, type: ir.FunctionType = ir.FunctionType.Opaque,  # noqa: A002
             level: ir.Level | None = None, role: ir.Role | None = None,
             external_source: str | None = None):
    """``@pl.function`` / ``@pl.function(type=pl.FunctionType.InCore, level=, role=, external_source=)``.

    On a module-level function the result is the parsed ``ir.Function``; on a method of a
    ``@pl.program`` class the class decorator parses it, with its siblings.
    """

    def wrap(f: Callable, caller: FrameType):
        spec = FunctionSpec(f, type, level, role, external_source)
        if _is_method(f):
            return spec
        from pypto.language.parser import parse_function
        return parse_function(spec, dict(caller.f_locals))

    if fn is not None:
        return wrap(fn, sys._getframe(1))
    return lambda f: wrap(f, sys._getframe(1))


def program(cls: type):
    """``@pl.program``: a class whose ``@pl.function`` methods form one ``ir.Program``."""
    from pypto.language.parser import parse_program_class
    return parse_program_class(cls)


def inline(fn: Callable) -> InlineFunction:
    return InlineFunction(fn)
