"""The contract of ``pld.system.defer_wait``: it defers the completion of the task it runs in, so that task must be
a region of its own, ``with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:``, at the top level
of its chip program, holding the deferred waits and nothing that does work (the scalar assignments computing their
offsets and expected values are allowed). What follows the wait is a separate task with ``deps=[tid]``.

These are the rules of the region form a ``@pl.jit`` program is written in. The program form (``@pl.program``, and
the printed IR, which parses back through it) is what the region becomes: an InCore function of the waits that the
orchestration submits with ``allow_early_resolve=False``; there only the limit on waits per task is checked."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pypto import ir
from pypto.language._ops import OpFunction
from pypto.language.errors import ParseSyntaxError, ParseValueError, PlacementError

# The scheduler's table: deferred conditions per task (pypto::runtime::kMaxDeferredConditions).
MAX_DEFER_WAITS_PER_TASK = 64

REGION = "with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:"
CONTINUATION = "with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):"


@dataclass
class TaskRegion:
    """A pl.at / pl.spmd / pl.cluster region being parsed, and the defer_waits found directly in it."""

    node: ast.With
    kind: str                   # "at", "spmd" or "cluster"
    level: ir.Level | None      # pl.at's level
    early: Any                  # allow_early_resolve= as written; None when not written
    split: Any                  # pl.at's pl.split mode (a mixed cube+vector kernel unless NONE)
    outer: TaskRegion | None
    defer_waits: list[ast.AST] = field(default_factory=list)


def check_site(parser, node: ast.AST) -> None:
    """A ``pld.system.defer_wait`` call at ``node``: its region must be a dedicated, top-level CORE_GROUP task that
    does not resolve early, with at most MAX_DEFER_WAITS_PER_TASK waits."""
    region: TaskRegion | None = parser.task_region
    fix = f"give the wait a region of its own, `{REGION}`, and put what uses it in `{CONTINUATION}`"
    if region is None and not parser.jit:
        parser.program_defer_waits += 1
        _check_count(parser, node, parser.program_defer_waits, "function")
        return
    if region is None:
        raise parser.err(node, "pld.system.defer_wait defers the completion of the task it runs in, so it must "
                         "sit in a dedicated pl.at region, not in a kernel body", fix, PlacementError)
    if region.kind != "at" or region.level != ir.Level.CORE_GROUP:
        where = f"pl.{region.kind}(...)" if region.kind != "at" else f"pl.at(level=pl.Level.{region.level.name})"
        raise parser.err(node, f"pld.system.defer_wait in a {where} region: only a single-block "
                         "pl.at(level=pl.Level.CORE_GROUP) task can defer its completion", fix, PlacementError)
    if region.outer is not None:
        raise parser.err(node, f"pld.system.defer_wait's region is nested in a pl.{region.outer.kind}(...) region; "
                         "a deferred task is a top-level task of its chip program",
                         f"move `{REGION}` out of the enclosing region", PlacementError)
    if region.early is not False:
        why = ("allow_early_resolve=True would release the region's dependents before its wait holds"
               if region.early else "the region must say so: write allow_early_resolve=False")
        raise parser.err(node, "pld.system.defer_wait needs a region whose dependents start only once the wait "
                         f"holds; {why}", f"open the region as `{REGION}`", ParseValueError)
    if region.split not in (None, ir.SplitMode.NONE):
        raise parser.err(node, "pld.system.defer_wait in a pl.split region: a deferred task is one vector kernel, "
                         "and a split region runs its code on both vector lanes, registering every wait twice",
                         "drop optimizations=[pl.split(...)] from the region", ParseValueError)
    region.defer_waits.append(node)
    _check_count(parser, node, len(region.defer_waits), "region")


def _check_count(parser, node: ast.AST, count: int, where: str) -> None:
    if count > MAX_DEFER_WAITS_PER_TASK:
        raise parser.err(node, f"this {where} has more than {MAX_DEFER_WAITS_PER_TASK} pld.system.defer_wait calls; "
                         f"a task defers its completion on at most {MAX_DEFER_WAITS_PER_TASK} conditions",
                         f"split the waits over several {where}s (tasks `tid1`, `tid2`, ...) and give the "
                         "continuation deps=[tid1, tid2, ...]", ParseValueError)


def check_region(parser, region: TaskRegion) -> None:
    """A region holding defer_waits holds nothing else that works: each statement is a defer_wait, a scalar
    assignment (offsets, expected values) or a docstring / pass."""
    for stmt in region.node.body:
        if _is_defer_wait(parser, stmt) or isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue
        if _assigns_scalars(parser, stmt):
            continue
        raise parser.err(stmt, "a pld.system.defer_wait region holds only the defer_wait calls and the scalar "
                         "assignments that compute their offsets and expected values: the task completes when "
                         "its waits hold, so work here would run before them",
                         f"move this statement before the region, or after it into `{CONTINUATION}`",
                         ParseSyntaxError)


def _is_defer_wait(parser, stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
        return False
    fn = parser.static(stmt.value.func)
    return isinstance(fn, OpFunction) and fn.op_name == "system.defer_wait"


def _assigns_scalars(parser, stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
    elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
        targets = [stmt.target]
    else:
        return False
    names = [t for t in targets if isinstance(t, ast.Name)]
    if len(names) != len(targets):
        return False
    return all(isinstance(parser.env.get(t.id), ir.Expr) and isinstance(parser.env[t.id].type, ir.ScalarType)
               for t in names)
