"""Small questions about the Python AST of a kernel body."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from pypto.language._dsl import INTRINSICS, Intrinsic
from pypto.language.errors import ParseError, ParseSyntaxError

if TYPE_CHECKING:
    from pypto.language.parser._builder import FunctionParser

def is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def return_values(node: ast.Return) -> list:
    if node.value is None:
        return []
    if isinstance(node.value, ast.Tuple):
        return list(node.value.elts)
    return [node.value]


def call_of(node) -> ast.Call | None:
    value = getattr(node, "value", None)
    return value if isinstance(value, ast.Call) else None


def intrinsic_call(p: "FunctionParser", node) -> Intrinsic | None:
    call = call_of(node)
    if call is None or not isinstance(node, (ast.Expr, ast.Assign, ast.AnnAssign)):
        return None
    try:
        fn = p.static(call.func)
    except ParseError:
        return None
    return fn if isinstance(fn, Intrinsic) else None


def yield_target(p: "FunctionParser", node):
    """(target names or None, the yield call) when ``node`` is a yield statement, else None."""
    if intrinsic_call(p, node) is not INTRINSICS["yield_"]:
        return None
    call = node.value
    if isinstance(node, ast.Expr):
        return None, call
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    if isinstance(target, ast.Name):
        return [target.id], call
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return [e.id for e in target.elts], call
    raise p.err(target, "pl.yield_ assigns names", cls=ParseSyntaxError)


def assigned_names(nodes: list) -> list[str]:
    """Names a block rebinds, in order of first assignment (nested blocks included)."""
    seen: list[str] = []

    def add(n: str) -> None:
        if n not in seen:
            seen.append(n)

    def targets(t) -> None:
        if isinstance(t, ast.Name):
            add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)
        elif isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name):
            add(t.value.id)

    for stmt in nodes:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Assign):
                for t in sub.targets:
                    targets(t)
            elif isinstance(sub, (ast.AnnAssign, ast.AugAssign)):
                targets(sub.target)
            elif isinstance(sub, ast.withitem) and sub.optional_vars is not None:
                targets(sub.optional_vars)  # a scope's task id: `with pl.at(...) as tid:`
    return seen


def terminates(nodes: list) -> bool:
    return bool(nodes) and isinstance(nodes[-1], (ast.Return, ast.Break, ast.Continue))


def ordered_union(a: dict, b: dict) -> list:
    return list(dict.fromkeys([*a, *b]))
