"""Errors of a kernel call, pointing at the user's call line.

A wrong argument is the caller's mistake, so the message names the caller's
file and line, shows that line with a caret under the offending argument
(found through the call's column positions and the file's syntax tree), and
says what to pass instead.
"""

from __future__ import annotations

import ast
import functools
import itertools
import linecache
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pypto

_JIT_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


@dataclass(frozen=True)
class ArgumentRef:
    """Which argument of the user's call an error is about: a position or a keyword."""

    index: int | None = None
    keyword: str | None = None


@dataclass(frozen=True)
class CallSite:
    """Where the user called a kernel: file, line, and the call's source positions.

    The call's syntax node is looked up only when an error is rendered, so a
    successful call pays for nothing but the frame walk.
    """

    filename: str
    lineno: int
    positions: tuple[int | None, int | None, int | None, int | None] | None

    @functools.cached_property
    def call(self) -> ast.Call | None:
        """The ast.Call at these positions in the caller's file, when it can be found."""
        return _call_node(self.filename, self.positions)

    def argument_node(self, index: int | None = None, keyword: str | None = None) -> ast.AST | None:
        """The syntax node of positional argument `index` or of keyword `keyword` in this call."""
        if self.call is None:
            return None
        if keyword is not None:
            return next((kw for kw in self.call.keywords if kw.arg == keyword), None)
        if index is not None and index < len(self.call.args) and not any(
                isinstance(a, ast.Starred) for a in self.call.args[:index + 1]):
            return self.call.args[index]
        return None

    def location(self, node: ast.AST | None) -> tuple[int, int | None]:
        """(line, 1-based column) of `node`, else of the call, else the frame's line alone."""
        node = node or self.call
        if node is None:
            return self.lineno, None
        return node.lineno, node.col_offset + 1

    def render(self, message: str, node: ast.AST | None = None) -> str:
        """`file:line:col: message`, then that source line with a caret under `node` (or the call)."""
        node = node or self.call
        line, column = self.location(node)
        header = f"{self.filename}:{line}:{column or 1}: {message}"
        text = linecache.getline(self.filename, line).rstrip("\n")
        if not text:
            return header
        if node is None:
            return f"{header}\n    {text}"
        end = node.end_col_offset if node.end_lineno == node.lineno and node.end_col_offset else len(text)
        width = max(1, end - node.col_offset)
        return f"{header}\n    {text}\n    {' ' * node.col_offset}{'^' * width}"


# Files of PyPTO that run a user's call on its way to a kernel: the JIT, and a host orchestrator's dispatch.
_INTERNAL_FILES = {os.path.join(os.path.dirname(_JIT_PACKAGE_DIR), "runtime", "distributed.py")}


def _is_internal(frame: FrameType) -> bool:
    path = os.path.abspath(frame.f_code.co_filename)
    return os.path.dirname(path) == _JIT_PACKAGE_DIR or path in _INTERNAL_FILES


@functools.lru_cache(maxsize=64)
def _syntax_tree(filename: str, mtime: float) -> ast.Module | None:
    del mtime  # part of the cache key only: an edited file is parsed again
    try:
        return ast.parse(Path(filename).read_text(encoding="utf-8"), filename)
    except (OSError, SyntaxError, ValueError):
        return None


def _call_node(filename: str, positions: tuple[int | None, ...] | None) -> ast.Call | None:
    """The ast.Call at `positions` (line, end line, column, end column, as co_positions gives them)."""
    if positions is None or None in positions:
        return None
    try:
        mtime = Path(filename).stat().st_mtime
    except OSError:
        return None
    tree = _syntax_tree(filename, mtime)
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (node.lineno, node.end_lineno, node.col_offset,
                                           node.end_col_offset) == positions:
            return node
    return None


def _instruction_positions(frame: FrameType) -> tuple[int | None, ...] | None:
    """Source positions (line, end line, column, end column) of the instruction the frame is executing."""
    if sys.version_info < (3, 11):
        return None
    if frame.f_lasti < 0:
        return None
    # f_lasti is a byte offset; co_positions has one entry per 2-byte code unit.
    return next(itertools.islice(frame.f_code.co_positions(), frame.f_lasti // 2, None), None)


def find_call_site() -> CallSite | None:
    """The first frame outside pypto.jit: the user's call of a kernel, compile() or lower()."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame):
        frame = frame.f_back
    if frame is None:
        return None
    return CallSite(frame.f_code.co_filename, frame.f_lineno, _instruction_positions(frame))


def _located(cls: type[pypto.Error], message: str, site: CallSite | None,
             argument: ArgumentRef | None) -> pypto.Error:
    if site is None:
        error = cls(message)
        error.message, error.filename, error.lineno, error.col_offset = message, None, None, None
        return error
    node = site.argument_node(argument.index, argument.keyword) if argument else None
    error = cls(site.render(message, node))
    error.message, error.filename = message, site.filename
    error.lineno, error.col_offset = site.location(node)
    return error


class KernelArgumentError(pypto.InvalidTypeError):
    """A kernel was called with the wrong number, kind or dtype of arguments, or with a compile option."""

    @classmethod
    def at(cls, message: str, site: CallSite | None, argument: ArgumentRef | None = None) -> KernelArgumentError:
        return _located(cls, message, site, argument)


class KernelShapeError(pypto.InvalidValueError):
    """A kernel argument's shape does not match its annotation or another argument."""

    @classmethod
    def at(cls, message: str, site: CallSite | None, argument: ArgumentRef | None = None) -> KernelShapeError:
        return _located(cls, message, site, argument)
