"""Errors of a kernel call, pointing at the user's call line.

A wrong argument is the caller's mistake, so the message names the caller's
file and line, shows that line with a caret under the offending argument
(found through the call's column positions and the file's syntax tree), and
says what to pass instead.
"""

from __future__ import annotations

import ast
import functools
import inspect
import linecache
import sys
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pypto

_JIT_PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class CallSite:
    """Where the user called a kernel: file, line, and the call's syntax node when it can be found."""

    filename: str
    lineno: int
    call: ast.Call | None

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

    def render(self, message: str, node: ast.AST | None = None) -> str:
        """`file:line:col: message`, then the source line with a caret under `node` (or the call)."""
        node = node or self.call
        text = linecache.getline(self.filename, self.lineno).rstrip("\n")
        on_line = node is not None and node.lineno == self.lineno
        column = node.col_offset + 1 if on_line else 1
        header = f"{self.filename}:{self.lineno}:{column}: {message}"
        if not text:
            return header
        if not on_line:
            return f"{header}\n    {text}"
        end = node.end_col_offset if node.end_lineno == node.lineno else len(text)
        width = max(1, (end or node.col_offset + 1) - node.col_offset)
        return f"{header}\n    {text}\n    {' ' * node.col_offset}{'^' * width}"


def _is_internal(frame: FrameType) -> bool:
    try:
        return Path(frame.f_code.co_filename).resolve().is_relative_to(_JIT_PACKAGE_DIR)
    except OSError:
        return False


@functools.lru_cache(maxsize=64)
def _syntax_tree(filename: str, mtime: float) -> ast.Module | None:
    del mtime  # part of the cache key only: an edited file is parsed again
    try:
        return ast.parse(Path(filename).read_text(encoding="utf-8"), filename)
    except (OSError, SyntaxError, ValueError):
        return None


def _call_node(frame: FrameType) -> ast.Call | None:
    """The ast.Call the frame is executing, matched by the instruction's source positions."""
    if sys.version_info < (3, 11):
        return None
    positions = inspect.getframeinfo(frame, context=0).positions
    if positions is None or positions.col_offset is None:
        return None
    filename = frame.f_code.co_filename
    try:
        mtime = Path(filename).stat().st_mtime
    except OSError:
        return None
    tree = _syntax_tree(filename, mtime)
    if tree is None:
        return None
    wanted = (positions.lineno, positions.col_offset, positions.end_lineno, positions.end_col_offset)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (node.lineno, node.col_offset, node.end_lineno,
                                           node.end_col_offset) == wanted:
            return node
    return None


def find_call_site() -> CallSite | None:
    """The first frame outside pypto.jit: the user's call of a kernel, compile() or lower()."""
    frame = inspect.currentframe()
    try:
        while frame is not None and _is_internal(frame):
            frame = frame.f_back
        if frame is None:
            return None
        return CallSite(frame.f_code.co_filename, frame.f_lineno, _call_node(frame))
    finally:
        del frame


def _located(cls: type[pypto.Error], message: str, site: CallSite | None,
             node: ast.AST | None) -> pypto.Error:
    text = message if site is None else site.render(message, node)
    error = cls(text)
    error.message = message
    error.filename = site.filename if site else None
    error.lineno = site.lineno if site else None
    error.col_offset = node.col_offset if node is not None and site else None
    return error


class KernelArgumentError(pypto.InvalidTypeError):
    """A kernel was called with the wrong number, kind or dtype of arguments, or with a compile option."""

    @classmethod
    def at(cls, message: str, site: CallSite | None, node: ast.AST | None = None) -> KernelArgumentError:
        return _located(cls, message, site, node)


class KernelShapeError(pypto.InvalidValueError):
    """A kernel argument's shape does not match its annotation or another argument."""

    @classmethod
    def at(cls, message: str, site: CallSite | None, node: ast.AST | None = None) -> KernelShapeError:
        return _located(cls, message, site, node)


class NotImplementedYetError(pypto.Error, NotImplementedError):
    """A stage of the compile-and-run flow that this build of PyPTO does not provide yet."""


class FrontendUnavailableError(NotImplementedYetError):
    """The Python front end (pypto.language.parser.parse_jit) is not installed."""


class CodegenUnavailableError(NotImplementedYetError):
    """Kernel code generation for the platform does not exist yet, so the program cannot run."""
