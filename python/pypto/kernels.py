"""Hand-written C++ kernels of kernel plugins, called by name from ``@pl.jit`` functions.

Every kernel that a discovered kernel plugin (``kind: kernel`` in its manifest.yaml) provides is an
attribute of this module::

    import pypto.kernels

    @pl.jit
    def matmul(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
        c = pypto.kernels.gemm_fp16(a, b, c)
        return c

The call is checked against the kernel's manifest signature when the function is parsed and becomes a
task that runs the kernel's C++ source, ordered by the directions the manifest declares. A name no
plugin provides is an AttributeError listing the kernels there are (``available()``). See
docs/external-kernels.md.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto import ir, plugins


@dataclass(frozen=True)
class TensorParam:
    name: str
    dtype: ir.DataType
    shape: tuple[int | str, ...]  # static sizes and symbol names
    direction: str  # "In", "Out" or "InOut"

    @property
    def written(self) -> bool:
        return self.direction != "In"

    def describe(self) -> str:
        dims = ", ".join(str(d) for d in self.shape)
        return f"{self.direction} {self.name}: [{dims}] {self.dtype.name}"


@dataclass(frozen=True)
class ScalarParam:
    name: str
    dtype: ir.DataType

    def describe(self) -> str:
        return f"{self.name}: {self.dtype.name}"


@dataclass(frozen=True)
class RegisteredKernel:
    """A kernel of a kernel plugin: its manifest entry. Calling it works only inside a parsed kernel body."""

    name: str
    plugin: str
    core: str  # "AIC" or "AIV"
    source: Path
    manifest: Path
    line: int
    description: str
    tensors: tuple[TensorParam, ...]
    scalars: tuple[ScalarParam, ...]
    multiple_of: dict[str, int] = field(default_factory=dict)

    @property
    def param_names(self) -> list[str]:
        return [t.name for t in self.tensors] + [s.name for s in self.scalars]

    @property
    def core_type(self) -> ir.FunctionType:
        return ir.FunctionType.AIC if self.core == "AIC" else ir.FunctionType.AIV

    def signature(self) -> str:
        """``gemm_fp16(In a: [M, K] FP16, In b: [K, N] FP16, Out c: [M, N] FP32)``."""
        params = [t.describe() for t in self.tensors] + [s.describe() for s in self.scalars]
        return f"{self.name}({', '.join(params)})"

    def where(self) -> str:
        return f"{self.manifest}:{self.line}"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from pypto.language._ops import kernel_only  # the language imports this module
        raise kernel_only(f"pypto.kernels.{self.name}")

    def __repr__(self) -> str:
        return f"<kernel {self.signature()} from plugin '{self.plugin}'>"


class UnknownKernelError(AttributeError):
    """``pypto.kernels.<name>`` for a name no discovered kernel plugin provides."""


def _from_record(record: dict[str, Any]) -> RegisteredKernel:
    tensors = tuple(TensorParam(t["name"], getattr(ir.DataType, t["dtype"]), tuple(t["shape"]), t["direction"])
                    for t in record["tensors"])
    scalars = tuple(ScalarParam(s["name"], getattr(ir.DataType, s["dtype"])) for s in record["scalars"])
    return RegisteredKernel(record["name"], record["plugin"], record["core"], Path(record["source"]),
                            Path(record["manifest"]), record["line"], record["description"], tensors, scalars,
                            dict(record["multiple_of"]))


def registered() -> dict[str, RegisteredKernel]:
    """Every kernel the discovered kernel plugins provide, by name (discovery is cached by the plugin host
    until the search paths change). Two plugins providing one kernel name is a PluginError naming both."""
    kernels: dict[str, RegisteredKernel] = {}
    for record in plugins.list_kernels():
        kernel = _from_record(record)
        if kernel.name in kernels:
            other = kernels[kernel.name]
            raise plugins.PluginError(f"two kernel plugins provide kernel '{kernel.name}': '{other.plugin}' "
                                      f"({other.manifest}) and '{kernel.plugin}' ({kernel.manifest}); rename one")
        kernels[kernel.name] = kernel
    return kernels


def available() -> list[str]:
    """The names of the kernels there are, sorted."""
    return sorted(registered())


def lookup(name: str) -> RegisteredKernel:
    """The kernel called `name`; an UnknownKernelError listing the kernels (and the closest name) otherwise."""
    kernels = registered()
    if name in kernels:
        return kernels[name]
    close = difflib.get_close_matches(name, kernels, n=1)
    guess = f"did you mean '{close[0]}'? " if close else ""
    listed = ", ".join(sorted(kernels)) or "none"
    raise UnknownKernelError(f"no kernel plugin provides a kernel named '{name}'; {guess}the kernels are: {listed}. "
                             "A kernel plugin's folder must be on the plugin search path (PYPTO_PLUGIN_PATH or "
                             "pypto.plugins.add_search_path); `pypto plugins` lists what was found")


def __getattr__(name: str) -> RegisteredKernel:
    if name.startswith("__"):
        raise AttributeError(name)
    return lookup(name)


def __dir__() -> list[str]:
    return sorted([*globals(), *registered()])
