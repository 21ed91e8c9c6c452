"""The @pl.jit family: @pl.jit, @pl.jit.incore[(level=)], @pl.jit.inline, @pl.jit.opaque, @pl.jit.host.

Each decorator works bare (``@pl.jit.incore``) or with keyword options
(``@pl.jit.incore(level=pl.Level.CORE_GROUP)``) and returns a JITFunction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pypto import ir
from pypto.jit.function import JITFunction


class KernelDecorator:
    """A decorator making a JITFunction of one kind; `options` are the keywords it accepts."""

    def __init__(self, kind: str, spelling: str, options: tuple[str, ...]) -> None:
        self.kind = kind
        self.spelling = spelling
        self.accepted = options

    def __repr__(self) -> str:
        return f"<{self.spelling} decorator>"

    def __call__(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        self._check(options)
        if fn is None:
            return lambda function: self._make(function, options)
        if not callable(fn):
            raise TypeError(f"{self.spelling} decorates a function, got {fn!r}; "
                            f"options are keywords: {self.spelling}({', '.join(o + '=...' for o in self.accepted)})")
        return self._make(fn, options)

    def _check(self, options: dict[str, Any]) -> None:
        for name in options:
            if name not in self.accepted:
                raise TypeError(f"{self.spelling} got an unknown option '{name}'; it accepts "
                                f"{', '.join(self.accepted)}")
        level = options.get("level")
        if level is not None and not isinstance(level, ir.Level):
            raise TypeError(f"{self.spelling}(level=...) takes a pl.Level such as pl.Level.CORE_GROUP, got {level!r}")
        source = options.get("external_source")
        if source is not None and not isinstance(source, str):
            raise TypeError(f"{self.spelling}(external_source=...) takes a path to a C++ file, got {source!r}")

    def _make(self, fn: Callable[..., Any], options: dict[str, Any]) -> JITFunction:
        if isinstance(fn, JITFunction):
            raise TypeError(f"{self.spelling} applied to {fn.__qualname__}, which is already decorated "
                            f"({fn.kind} kernel); use one @pl.jit decorator per function")
        return JITFunction(fn, self.kind, level=options.get("level"),
                           external_source=options.get("external_source"), options=options)


class JitDecorator(KernelDecorator):
    """``@pl.jit``: an Orchestration entry; its attributes are the decorators of the other kinds."""

    def __init__(self) -> None:
        super().__init__("orchestration", "@pl.jit", ("external_source",))
        self.incore = KernelDecorator("incore", "@pl.jit.incore", ("level", "external_source"))
        self.inline = KernelDecorator("inline", "@pl.jit.inline", ("external_source",))
        self.opaque = KernelDecorator("opaque", "@pl.jit.opaque", ("external_source",))
        self.host = KernelDecorator("host", "@pl.jit.host", ("external_source",))


jit = JitDecorator()
