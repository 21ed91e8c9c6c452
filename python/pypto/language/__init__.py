"""``pypto.language`` (imported as ``pl``): the DSL in which PyPTO kernels are written.

Kernel bodies are never executed: the decorators read the source and the parser builds IR.
"""

from __future__ import annotations

import difflib

from pypto import ir
from pypto.language._dsl import INTRINSICS, FunctionSpec, InlineFunction, Intrinsic, function, inline, program
from pypto.language._ops import Dispatcher, KernelOnlyError, OpFunction, OpNamespace, build_namespaces
from pypto.language._types import (
    Array,
    DynamicDim,
    InOut,
    MemRef,
    Out,
    Ptr,
    Scalar,
    Tensor,
    TensorView,
    Tile,
    TileView,
    Tuple,
    Unknown,
    dynamic,
)
from pypto.language.errors import ParseError, ParseSyntaxError, ParseTypeError, ParseValueError, PlacementError

DataType = ir.DataType
Mem = MemorySpace = ir.MemorySpace
Level = ir.Level
Role = ir.Role
FunctionType = ir.FunctionType
PadValue = ir.PadValue
SplitMode = ir.SplitMode
TensorLayout = ir.TensorLayout
TileLayout = ir.TileLayout
ForKind = ir.ForKind
ParamDirection = ir.ParamDirection
Expr = ir.Expr  # spelled in printed text as list[pl.Expr]() (an empty expression list)
# pl.reserve_buffer(..., base=pl.AUTO): the compiler chooses the address.
AUTO = -1

# Every dtype as pl.<NAME> (pl.FP32, pl.INT8, pl.INDEX, pl.TASK_ID, ...).
_DTYPES = {dt.name: dt for dt in ir.DataType.all()}
globals().update(_DTYPES)

_NAMESPACES, _DISPATCHERS = build_namespaces()
tensor = _NAMESPACES["tensor"]
tile = _NAMESPACES["tile"]
system = _NAMESPACES["system"]
array = _NAMESPACES["array"]
globals().update(_DISPATCHERS)
globals().update(INTRINSICS)

from pypto.language.parser import loads, parse, parse_jit  # noqa: E402  (the parser imports pl)


def level_specific_spelling(name: str) -> str:
    """What to write instead of an unknown ``pl.<name>``."""
    hits = [f"pl.{ns}.{name}" for ns in ("tile", "tensor", "system", "array") if hasattr(_NAMESPACES[ns], name)]
    if hits:
        return "use the level-specific op " + " or ".join(hits)
    known = list(_DTYPES) + list(_DISPATCHERS) + list(INTRINSICS) + list(__all__)
    close = difflib.get_close_matches(name, known, n=3)
    return ("did you mean " + ", ".join(f"pl.{c}" for c in close) + "?") if close else \
        "see `pypto ops` for the ops; pl.tile.<op> / pl.tensor.<op> reach each level directly"


def __getattr__(name: str):
    if name == "jit":
        # The @pl.jit family lives in pypto.jit, which imports this module; resolve it lazily.
        from pypto.jit import jit

        return jit
    raise AttributeError(f"module 'pypto.language' has no attribute '{name}': {level_specific_spelling(name)}")


__all__ = [
    "AUTO", "Array", "DataType", "Dispatcher", "DynamicDim", "Expr", "ForKind", "FunctionSpec", "FunctionType", "InOut",
    "InlineFunction", "Intrinsic", "KernelOnlyError", "Level", "Mem", "MemRef", "MemorySpace", "OpFunction",
    "OpNamespace", "Out", "PadValue", "ParamDirection", "ParseError", "ParseSyntaxError", "ParseTypeError",
    "ParseValueError", "PlacementError", "Ptr", "Role", "Scalar", "SplitMode", "Tensor", "TensorLayout",
    "TensorView", "Tile", "TileLayout", "TileView", "Tuple", "Unknown", "array", "dynamic", "function",
    "inline", "loads", "parse", "parse_jit", "program", "system", "tensor", "tile",
    *_DTYPES, *_DISPATCHERS, *INTRINSICS,
]
