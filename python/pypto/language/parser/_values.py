"""Facts about IR values the parser checks: how a type reads, whether two types agree."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto import ir


def is_number(v: Any) -> bool:
    """A Python literal the parser folds (bools included: ``not`` folds too)."""
    return isinstance(v, (int, float))


def describe(t: ir.Type) -> str:
    return ir.as_python(t)


def same_kind_and_dtype(a: ir.Type, b: ir.Type) -> bool:
    if a.type_name != b.type_name:
        return False
    da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
    return da == db


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


@dataclass
class Loop:
    kind: str  # "Sequential", "Parallel", "Unroll", "Pipeline", "While"
