"""Facts about IR values the parser checks: how a type reads, whether two types agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto import ir


def is_number(v: Any) -> bool:
    """A Python literal the parser folds (bools included: ``not`` folds too)."""
    return isinstance(v, (int, float))


def describe(t: ir.Type) -> str:
    return ir.as_python(t)


def same_kind_and_dtype(a: ir.Type, b: ir.Type) -> bool:
    """Whether a value of type `a` may be passed where `b` is expected (a window may go where a tensor may, its
    local slice; a plain tensor never goes where a window must)."""
    a_name = level_name(a) if b.type_name == "TensorType" else a.type_name
    if a_name != b.type_name:
        return False
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    return da == db


def annotation_filled_from(annotation: ir.Type, value_type: ir.Type) -> ir.Type:
    """The type a variable gets from `x: annotation = value`.

    A tile annotation may leave the memory space open (`pl.Tile[[32, 1], pl.FP32]`):
    the annotation then checks shape and dtype, and the variable takes the value's
    fuller type, so the manual's `s: pl.Tile[[M, 1], pl.FP32] = pl.row_sum(...)` works.
    """
    if not (isinstance(annotation, ir.TileType) and isinstance(value_type, ir.TileType)):
        return annotation
    if annotation.memory_space is not None or value_type.memory_space is None:
        return annotation
    with_space = ir.TileType(annotation.shape, annotation.dtype, value_type.memory_space)
    plain_value = ir.TileType(value_type.shape, value_type.dtype, value_type.memory_space)
    if ir.structural_equal(annotation, ir.TileType(annotation.shape, annotation.dtype)) \
            and ir.structural_equal(with_space, plain_value):
        return value_type
    return annotation


def is_task_id(t: ir.Type) -> bool:
    return isinstance(t, ir.ScalarType) and t.dtype == ir.DataType.TASK_ID


def is_task_id_or_array(t: ir.Type) -> bool:
    """What ``deps=`` takes: a TaskId, or an array of them."""
    return is_task_id(t) or (isinstance(t, ir.ArrayType) and t.dtype == ir.DataType.TASK_ID)


def with_comments(stmt: ir.Stmt, comments: list[str]) -> ir.Stmt:
    """``stmt`` with ``comments`` above its own: a new node over the same fields."""
    fields = {name: getattr(stmt, name) for name in stmt.field_names}
    return type(stmt)(**fields, span=stmt.span, leading_comments=[*comments, *stmt.leading_comments])


@dataclass(frozen=True)
class SplitOption:
    """``pl.split(mode)`` in ``pl.at(optimizations=[...])``."""

    mode: ir.SplitMode
    slot_num: int | None = None  # the deprecated spelling of pl.cross_core_slot(slot_num=N)


@dataclass
class CrossCoreSlotOption:
    """``pl.cross_core_slot(slot_num=N)`` in ``pl.at(optimizations=[...])``."""

    slot_num: int


@dataclass
class Loop:
    kind: str  # "Sequential", "Parallel", "Unroll", "Pipeline", "While"
    # The loop-carried names and their iter_args: a name still bound to its iter_arg has not been
    # reassigned in the current iteration.
    carried: dict[str, Any] = field(default_factory=dict)


def level_name(t: ir.Type) -> str:
    """The type's node name, with a window (DistributedTensorType) counted as the tensor it is locally."""
    name = t.type_name
    return "TensorType" if name == "DistributedTensorType" else name
