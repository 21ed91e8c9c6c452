"""Type annotations of the DSL: ``pl.Tensor[...]``, ``pl.Tile[...]``, ``pl.Scalar[...]`` and friends.

These objects only describe types; the parser turns them into ``pypto.ir`` types. Subscripting
one (``pl.Tensor[[64, N], pl.FP32]``) records its arguments, so module-level aliases such as
``Row = pl.Tensor[[1, 128], pl.FP16]`` work in annotations.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from typing import Any

from pypto import ir

DataType = ir.DataType


class DynamicDim:
    """``pl.dynamic("N")``: one symbolic dimension. Each call makes a new dimension; using the
    same object in several shapes says those extents are equal."""

    def __init__(self, name: str, dtype: DataType = DataType.INDEX, span: ir.Span | None = None) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError("pl.dynamic needs a non-empty name, e.g. N = pl.dynamic(\"N\")")
        self.name = name
        self.dtype = dtype
        self.var = ir.Var(name, ir.ScalarType(dtype), span=span or ir.Span())

    def __repr__(self) -> str:
        return f"pl.dynamic({self.name!r})"


def _caller_span(frame) -> ir.Span:
    """The span of the call expression being evaluated in ``frame``."""
    info = inspect.getframeinfo(frame)
    pos = info.positions
    if pos is None or pos.lineno is None:
        return ir.Span(info.filename, info.lineno, 1, info.lineno, 1)
    return ir.Span(info.filename, pos.lineno, (pos.col_offset or 0) + 1, pos.end_lineno or pos.lineno,
                   (pos.end_col_offset or 0) + 1)


def dynamic(name: str, dtype: DataType = DataType.INDEX) -> DynamicDim:
    return DynamicDim(name, dtype, _caller_span(sys._getframe(1)))


@dataclass(frozen=True)
class TensorView:
    """The strided-window description printed inside a tensor type."""

    stride: list | None = None
    valid_shape: list | None = None
    pad: Any = None
    layout: Any = None


@dataclass(frozen=True)
class TileView:
    valid_shape: list | None = None
    blayout: Any = None
    slayout: Any = None
    fractal: int = 0
    pad: Any = None


@dataclass(frozen=True)
class MemRef:
    """``pl.MemRef("name", byte_offset, size, pl.Mem.Vec, base=b)``: an on-chip buffer. Within one
    function, one name is one buffer."""

    name: str
    byte_offset: Any
    size: int
    memory_space: Any
    base: Any = None


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple
    dtype: DataType
    layout: Any = None
    view: TensorView | None = None


@dataclass(frozen=True)
class DistributedTensorSpec(TensorSpec):
    """``pld.DistributedTensor[[shape], dtype]``: a tensor in a window buffer."""


def distributed_tensor_spec(item: Any) -> DistributedTensorSpec:
    args = _as_tuple(item)
    if len(args) not in (2, 3):
        raise TypeError("pld.DistributedTensor takes [shape, dtype] and optionally a layout")
    shape, dtype = _shape_of(args[0], "pld.DistributedTensor"), _dtype_of(args[1], "pld.DistributedTensor")
    layout = args[2] if len(args) == 3 else None
    if layout is not None and not isinstance(layout, ir.TensorLayout):
        raise TypeError(f"pld.DistributedTensor: the third argument must be a pl.TensorLayout, got {layout!r}")
    return DistributedTensorSpec(shape, dtype, layout)


@dataclass(frozen=True)
class TileSpec:
    shape: tuple
    dtype: DataType
    memref: MemRef | None = None
    memory_space: Any = None
    view: TileView | None = None


@dataclass(frozen=True)
class ScalarSpec:
    dtype: DataType


@dataclass(frozen=True)
class ArraySpec:
    size: int
    dtype: DataType


@dataclass(frozen=True)
class TupleSpec:
    fields: tuple = field(default_factory=tuple)


@dataclass(frozen=True)
class PtrSpec:
    memory_space: Any


@dataclass(frozen=True)
class DirectionSpec:
    """``pl.Out[T]`` / ``pl.InOut[T]``: a parameter the function writes."""

    direction: ir.ParamDirection
    inner: Any


def _as_tuple(item: Any) -> tuple:
    return item if isinstance(item, tuple) else (item,)


def _shape_of(shape: Any, what: str) -> tuple:
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"{what}: the shape must be a list, e.g. {what}[[64, 128], pl.FP32]")
    return tuple(shape)


def _dtype_of(dtype: Any, what: str) -> DataType:
    if not isinstance(dtype, DataType):
        raise TypeError(f"{what}: expected a dtype such as pl.FP32, got {dtype!r}")
    return dtype


class Tensor:
    """``pl.Tensor[[shape], dtype]`` (optionally a layout or a ``pl.TensorView``). Bare ``pl.Tensor``
    takes its shape and dtype from the argument at JIT time."""

    def __class_getitem__(cls, item: Any) -> TensorSpec:
        args = _as_tuple(item)
        if len(args) not in (2, 3):
            raise TypeError("pl.Tensor takes [shape, dtype] and optionally a layout or pl.TensorView")
        shape, dtype = _shape_of(args[0], "pl.Tensor"), _dtype_of(args[1], "pl.Tensor")
        if len(args) == 2:
            return TensorSpec(shape, dtype)
        extra = args[2]
        if isinstance(extra, TensorView):
            return TensorSpec(shape, dtype, extra.layout, extra)
        if isinstance(extra, ir.TensorLayout):
            return TensorSpec(shape, dtype, extra)
        raise TypeError(f"pl.Tensor: the third argument must be a pl.TensorLayout or pl.TensorView, got {extra!r}")


class Tile:
    """``pl.Tile[[shape], dtype]`` plus optional ``pl.MemRef(...)``, memory space and ``pl.TileView(...)``."""

    def __class_getitem__(cls, item: Any) -> TileSpec:
        args = _as_tuple(item)
        if len(args) < 2:
            raise TypeError("pl.Tile takes [shape, dtype, memref?, memory space?, pl.TileView?]")
        shape, dtype = _shape_of(args[0], "pl.Tile"), _dtype_of(args[1], "pl.Tile")
        memref = memory_space = view = None
        for extra in args[2:]:
            if isinstance(extra, MemRef):
                memref = extra
            elif isinstance(extra, ir.MemorySpace):
                memory_space = extra
            elif isinstance(extra, TileView):
                view = extra
            else:
                raise TypeError(f"pl.Tile: unexpected {extra!r}; use pl.MemRef(...), pl.Mem.<space> or pl.TileView(...)")
        return TileSpec(shape, dtype, memref, memory_space, view)


class Scalar:
    """``pl.Scalar[dtype]``."""

    def __class_getitem__(cls, item: Any) -> ScalarSpec:
        return ScalarSpec(_dtype_of(item, "pl.Scalar"))


class Array:
    """``pl.Array[size, dtype]``: a small array of scalars in orchestration code (TaskId lists)."""

    def __class_getitem__(cls, item: Any) -> ArraySpec:
        args = _as_tuple(item)
        if len(args) != 2 or not isinstance(args[0], int):
            raise TypeError("pl.Array takes [size, dtype], e.g. pl.Array[8, pl.TASK_ID]")
        return ArraySpec(args[0], _dtype_of(args[1], "pl.Array"))


class Tuple:
    """``pl.Tuple[A, B]`` (``pl.Tuple[()]`` when empty)."""

    def __class_getitem__(cls, item: Any) -> TupleSpec:
        return TupleSpec(_as_tuple(item))


class Ptr:
    """``pl.Ptr[pl.Mem.Vec]``: the base address of an on-chip allocation."""

    def __class_getitem__(cls, item: Any) -> PtrSpec:
        return PtrSpec(item)


class Unknown:
    """A value whose type is not known yet."""


class Out:
    """``pl.Out[T]``: a parameter the function writes (its result is visible to the caller)."""

    def __class_getitem__(cls, item: Any) -> DirectionSpec:
        return DirectionSpec(ir.ParamDirection.Out, item)


class InOut:
    """``pl.InOut[T]``: a parameter the function reads and writes."""

    def __class_getitem__(cls, item: Any) -> DirectionSpec:
        return DirectionSpec(ir.ParamDirection.InOut, item)
