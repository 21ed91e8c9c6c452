"""Errors in a user's DSL program: each names the file and line, shows the line with a caret under
the offending expression, and says what to do."""

from __future__ import annotations

import linecache

from pypto import Error


class ParseError(Error):
    """A DSL program the parser cannot turn into IR (a ``pypto.Error``, with ``.message``,
    ``.filename``, ``.lineno``, ``.col_offset`` and ``.hint``)."""

    def __init__(self, message: str, filename: str = "<unknown>", lineno: int = 0, col_offset: int = 0,
                 end_col_offset: int | None = None, hint: str = "", source_line: str | None = None) -> None:
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.col_offset = col_offset
        self.end_col_offset = end_col_offset
        self.hint = hint
        if source_line is None and lineno > 0:
            source_line = linecache.getline(filename, lineno).rstrip("\n")
        self.source_line = source_line or ""
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.filename}:{self.lineno}:{self.col_offset + 1}: {self.message}"]
        if self.source_line:
            stripped = self.source_line.lstrip()
            indent = len(self.source_line) - len(stripped)
            end = self.end_col_offset if self.end_col_offset and self.end_col_offset > self.col_offset \
                else self.col_offset + 1
            end = min(end, len(self.source_line)) if len(self.source_line) > self.col_offset else self.col_offset + 1
            lines.append("    " + stripped)
            lines.append("    " + " " * max(self.col_offset - indent, 0) + "^" * max(end - self.col_offset, 1))
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class ParseTypeError(ParseError, TypeError):
    """A value of the wrong type, a missing annotation, a bad call."""


class ParseValueError(ParseError, ValueError):
    """A value that is out of range or not allowed where it appears."""


class ParseSyntaxError(ParseError, SyntaxError):
    """Python syntax the DSL does not accept, or a construct in the wrong place."""

    def __init__(self, *args, **kwargs) -> None:
        ParseError.__init__(self, *args, **kwargs)
        self.msg = self.message
        self.offset = self.col_offset + 1
        self.text = self.source_line


class PlacementError(ParseValueError):
    """An op used on the wrong side of the control plane / InCore divide."""
