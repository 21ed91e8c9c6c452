"""Where a parsed function came from: its file, its AST, and spans and errors pointing into it."""

from __future__ import annotations

import ast
import bisect
import inspect
import io
import linecache
import textwrap
import tokenize
from dataclasses import dataclass, field

from pypto import ir
from pypto.language.errors import ParseError


@dataclass
class Source:
    filename: str
    lines: list[str]
    tree: ast.Module
    col_shift: int = 0
    module_names: dict = field(default_factory=dict)
    # Full-line `#` comments by the line of the statement they precede (DSL text only).
    comments: dict[int, list[str]] = field(default_factory=dict)

    @classmethod
    def of_object(cls, obj) -> "Source":
        """The AST of a function or class, with line numbers of its file."""
        try:
            filename = inspect.getsourcefile(obj) or inspect.getfile(obj)
            lines, start = inspect.getsourcelines(obj)
        except (OSError, TypeError) as e:
            raise ParseError(f"cannot read the source of {getattr(obj, '__qualname__', obj)!r}: {e}",
                             hint="define kernels in a .py file: the parser reads their source, "
                                  "it never runs them") from e
        first = lines[0]
        indent = len(first) - len(first.lstrip())
        text = textwrap.dedent("".join(lines)) if indent else "".join(lines)
        tree = ast.parse(text)
        ast.increment_lineno(tree, start - 1)
        file_lines = linecache.getlines(filename) or ["\n"] * (start - 1) + lines
        return cls(filename, file_lines, tree, indent)

    @classmethod
    def of_text(cls, text: str, filename: str = "<string>") -> "Source":
        try:
            tree = ast.parse(text, filename=filename)
        except SyntaxError as e:
            from pypto.language.errors import ParseSyntaxError
            raise ParseSyntaxError(f"invalid Python: {e.msg}", filename, e.lineno or 0, (e.offset or 1) - 1,
                                   source_line=(e.text or "").rstrip("\n")) from None
        return cls(filename, text.splitlines(), tree, 0, comments=_leading_comments(text, tree))

    def take_comments(self, node: ast.AST) -> list[str]:
        """The comments above ``node``'s statement, once: a statement parsed twice gets them once."""
        return self.comments.pop(getattr(node, "lineno", 0), [])

    def span(self, node: ast.AST) -> ir.Span:
        line = getattr(node, "lineno", 0)
        if not line:
            return ir.Span(self.filename)
        return ir.Span(self.filename, line, node.col_offset + 1 + self.col_shift,
                       node.end_lineno or line, (node.end_col_offset or node.col_offset) + 1 + self.col_shift)

    def line_text(self, lineno: int) -> str:
        if 0 < lineno <= len(self.lines):
            return self.lines[lineno - 1].rstrip("\n")
        return ""

    def error(self, node: ast.AST | None, message: str, hint: str = "", cls: type = ParseError) -> ParseError:
        if node is None or not getattr(node, "lineno", 0):
            return cls(message, self.filename, 0, 0, hint=hint, source_line="")
        end = node.end_col_offset if node.end_lineno == node.lineno else None
        return cls(message, self.filename, node.lineno, node.col_offset + self.col_shift,
                   end + self.col_shift if end is not None else None, hint, source_line=self.line_text(node.lineno))


def _leading_comments(text: str, tree: ast.Module) -> dict[int, list[str]]:
    """Each full-line comment, without its `#` and one space, under the first statement after it."""
    starts = sorted({n.lineno for n in ast.walk(tree) if isinstance(n, ast.stmt)})
    comments: dict[int, list[str]] = {}
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT or tok.line[:tok.start[1]].strip():
            continue
        i = bisect.bisect_right(starts, tok.start[0])
        if i == len(starts):
            continue
        body = tok.string[1:]
        comments.setdefault(starts[i], []).append(body[1:] if body.startswith(" ") else body)
    return comments
