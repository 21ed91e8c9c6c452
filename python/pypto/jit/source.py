"""A kernel's source: its syntax tree, the names it reads, and the hash the cache keys on.

The hash covers everything that decides what the parser produces from a
kernel: the text of the entry and of every sub-function it calls, the values
of the module-level constants they read (folded at parse time, so editing
one must recompile), the external C++ source if one is named, and the PyPTO
version.
"""

from __future__ import annotations

import ast
import builtins
import enum
import functools
import hashlib
import inspect
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypto
from pypto import ir


@dataclass(frozen=True)
class SourceInfo:
    """The source of one decorated function."""

    filename: str
    first_line: int  # file line of the first source line (the first decorator)
    indent: int  # columns removed by dedenting
    text: str  # dedented
    tree: ast.FunctionDef | ast.AsyncFunctionDef

    @functools.cached_property
    def read_names(self) -> tuple[str, ...]:
        """Names the function reads (body, annotations, defaults), in source order, once each."""
        return tuple(read_names(self.tree))

    @functools.cached_property
    def annotation_names(self) -> tuple[str, ...]:
        """The names the parameter annotations read."""
        args = self.tree.args
        return tuple(sorted({node.id for arg in args.posonlyargs + args.args + args.kwonlyargs if arg.annotation
                             for node in ast.walk(arg.annotation) if isinstance(node, ast.Name)}))

    def file_position(self, node: ast.AST) -> tuple[int, int]:
        """(line, column) in the file of a node of `tree`, both 1-based."""
        return self.first_line + node.lineno - 1, self.indent + node.col_offset + 1


def read_source(fn: Callable[..., Any]) -> SourceInfo:
    """Source text and syntax tree of a function defined in a file."""
    try:
        lines, first_line = inspect.getsourcelines(fn)
    except (OSError, TypeError) as exc:
        raise pypto.InvalidValueError(
            f"the source of {fn.__qualname__} cannot be read ({exc}); @pl.jit kernels must be defined "
            "in a .py file, not in an interactive prompt or through exec()") from exc
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    indent = len(lines[0]) - len(lines[0].lstrip()) if text != raw else 0
    module = ast.parse(text)
    tree = module.body[0]
    if not isinstance(tree, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise pypto.InvalidTypeError(f"{fn.__qualname__}: @pl.jit decorates functions, "
                                     f"got a {type(tree).__name__}")
    return SourceInfo(inspect.getsourcefile(fn) or fn.__code__.co_filename, first_line, indent, text, tree)


def namespace(fn: Callable[..., Any]) -> dict[str, Any]:
    """The names a function's body can read: builtins, then its module's globals, then its closure."""
    names: dict[str, Any] = dict(vars(builtins))
    names.update(fn.__globals__)
    closure = fn.__closure__ or ()
    for name, cell in zip(fn.__code__.co_freevars, closure):
        try:
            names[name] = cell.cell_contents
        except ValueError:  # a cell not yet bound when the kernel is specialized
            continue
    return names


def read_names(tree: ast.AST) -> Iterator[str]:
    """Names read anywhere in a function (body, annotations, defaults), in source order, once each."""
    seen: set[str] = set()
    nodes = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)),
                   key=lambda n: (n.lineno, n.col_offset))
    for node in nodes:
        if node.id not in seen:
            seen.add(node.id)
            yield node.id


def is_foldable_constant(value: Any) -> bool:
    """Values the parser folds into the program: numbers, strings, dtypes, enums, and tuples of those."""
    if isinstance(value, (bool, int, float, complex, str, bytes, type(None), ir.DataType, enum.Enum)):
        return True
    if type(value).__module__.startswith("pypto") and hasattr(type(value), "__members__"):
        return True  # pybind11 enums (pl.Level, pl.MemorySpace, ...)
    if isinstance(value, (tuple, list, frozenset)):
        return all(is_foldable_constant(v) for v in value)
    return False


def referenced_constants(info: SourceInfo, names: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, repr) of every foldable constant a function reads from its module or closure."""
    found = []
    for name in info.read_names:
        if name in names and name not in vars(builtins) and is_foldable_constant(names[name]):
            found.append((name, repr(names[name])))
    return found


def external_source_text(external_source: str | None, info: SourceInfo) -> bytes:
    """Contents of an external kernel source (a path relative to the kernel's file), or b'' when absent."""
    if external_source is None:
        return b""
    path = Path(external_source)
    if not path.is_absolute():
        path = Path(info.filename).parent / path
    try:
        return path.read_bytes()
    except OSError:
        return f"<missing {path}>".encode()


def source_hash(parts: list[tuple[str, SourceInfo, list[tuple[str, str]], bytes]]) -> str:
    """sha256 over the PyPTO version and, per function, its name, text, constants and external source."""
    digest = hashlib.sha256()
    digest.update(f"pypto {pypto.__version__}\0".encode())
    for name, info, constants, external in parts:
        digest.update(f"def {name}\0".encode())
        digest.update(info.text.encode())
        for constant, value in constants:
            digest.update(f"\0{constant}={value}".encode())
        digest.update(b"\0external\0" + external)
    return digest.hexdigest()
