"""The @pl.jit family: @pl.jit, @pl.jit.incore[(level=)], @pl.jit.inline, @pl.jit.opaque, @pl.jit.host,
and @pl.jit.extern(core_type=, source=) for hand-written C++ kernels.

Each decorator works bare (``@pl.jit.incore``) or with keyword options
(``@pl.jit.incore(level=pl.Level.CORE_GROUP)``) and returns a JITFunction;
``@pl.jit.extern`` always takes its options.
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


# core_type= of @pl.jit.extern -> the function type its kernel runs as.
EXTERN_CORE_TYPES = {"aic": ir.FunctionType.AIC, "aiv": ir.FunctionType.AIV}
# Options of the spec's mixed (one AIC + one AIV source) external kernels, which PyPTO cannot run yet.
MIXED_EXTERN_OPTIONS = ("aic_source", "aiv_source", "dual_aiv_dispatch")


class ExternDecorator:
    """``@pl.jit.extern(core_type="aic"|"aiv", source="f.cpp", include_dirs=[...])``: a kernel whose code is a
    C++ file (body ``...``), run on the cube (AIC) or a vector (AIV) core. See docs/external-kernels.md."""

    spelling = "@pl.jit.extern"
    accepted = ("core_type", "source", "include_dirs")

    def __repr__(self) -> str:
        return f"<{self.spelling} decorator>"

    def __call__(self, fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
        if fn is not None:
            raise TypeError(f"{self.spelling} needs its options: @pl.jit.extern(core_type=\"aiv\", "
                            f"source=\"kernel.cpp\") above def {getattr(fn, '__name__', fn)}(...)")
        self._reject_mixed(options)
        self._check(options)
        return lambda function: self._make(function, options)

    def _reject_mixed(self, options: dict[str, Any]) -> None:
        mixed = [f"{name}=" for name in MIXED_EXTERN_OPTIONS if name in options and options[name] is not False]
        if options.get("core_type") == "mixed":
            mixed.insert(0, 'core_type="mixed"')
        if mixed:
            raise TypeError(
                f"{self.spelling}({', '.join(mixed)}): an external kernel runs on one core type, AIC or AIV; an AIC "
                "and an AIV source run as one task are not accepted. Write the cube and vector parts as two kernels, "
                '@pl.jit.extern(core_type="aic", ...) and @pl.jit.extern(core_type="aiv", ...), and call both')

    def _check(self, options: dict[str, Any]) -> None:
        for name in options:
            if name not in self.accepted and name not in MIXED_EXTERN_OPTIONS:
                raise TypeError(f"{self.spelling} got an unknown option '{name}'; it accepts "
                                f"{', '.join(self.accepted)}")
        core_type = options.get("core_type")
        if core_type not in EXTERN_CORE_TYPES:
            choices = ", ".join(f'"{c}"' for c in EXTERN_CORE_TYPES)
            raise TypeError(f"{self.spelling}(core_type=...) is one of {choices} (the cube or a vector core), got "
                            f"{core_type!r}")
        source = options.get("source")
        if not isinstance(source, str):
            raise TypeError(f"{self.spelling}(source=...) takes the path of the kernel's C++ file (relative to the "
                            f"Python file), got {source!r}")
        include_dirs = options.get("include_dirs", [])
        if not isinstance(include_dirs, (list, tuple)) or not all(isinstance(d, str) for d in include_dirs):
            raise TypeError(f"{self.spelling}(include_dirs=...) takes a list of folder paths (relative to the "
                            f"Python file), got {include_dirs!r}")

    def _make(self, fn: Callable[..., Any], options: dict[str, Any]) -> JITFunction:
        if isinstance(fn, JITFunction):
            raise TypeError(f"{self.spelling} applied to {fn.__qualname__}, which is already decorated "
                            f"({fn.kind} kernel); use one @pl.jit decorator per function")
        return JITFunction(fn, "extern", external_source=options["source"],
                           options={**options, "include_dirs": list(options.get("include_dirs", []))})


class JitDecorator(KernelDecorator):
    """``@pl.jit``: an Orchestration entry; its attributes are the decorators of the other kinds."""

    def __init__(self) -> None:
        super().__init__("orchestration", "@pl.jit", ("external_source",))
        self.incore = KernelDecorator("incore", "@pl.jit.incore", ("level", "external_source"))
        self.inline = KernelDecorator("inline", "@pl.jit.inline", ("external_source",))
        self.opaque = KernelDecorator("opaque", "@pl.jit.opaque", ("external_source",))
        self.host = KernelDecorator("host", "@pl.jit.host", ("external_source",))
        self.extern = ExternDecorator()


jit = JitDecorator()
