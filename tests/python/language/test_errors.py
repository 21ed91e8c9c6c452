"""Each rejected program raises the right ParseError at the marked line, with the source line, a caret
and advice."""

import inspect
from pathlib import Path

import pytest

import pypto
import pypto.language as pl

from . import error_programs

FILE = Path(error_programs.__file__)


def marked_line(cls) -> int:
    lines, start = inspect.getsourcelines(cls)
    hits = [start + i for i, line in enumerate(lines) if line.rstrip().endswith("# ERR")]
    assert len(hits) == 1, f"{cls.__name__} must mark exactly one line"
    return hits[0]


@pytest.mark.parametrize("name,cls,exc,message,hint", error_programs.CASES, ids=[c[0] for c in error_programs.CASES])
def test_error_points_at_the_user_line(name, cls, exc, message, hint):
    with pytest.raises(exc) as info:
        pl.program(cls)
    err = info.value
    line = marked_line(cls)
    assert isinstance(err, pl.ParseError)
    assert message in err.message
    assert err.filename == str(FILE)
    assert err.lineno == line
    text = str(err)
    assert text.startswith(f"{FILE}:{line}:")
    source = FILE.read_text().splitlines()[line - 1]
    assert source.strip() in text
    caret = text.splitlines()[2]
    assert set(caret.strip()) == {"^"}
    column = caret.index("^") - 4 + (len(source) - len(source.lstrip()))
    assert column == err.col_offset
    if hint:
        assert hint in err.hint


def test_error_families_subclass_the_builtins():
    assert issubclass(pl.ParseError, pypto.Error)
    assert issubclass(pl.ParseTypeError, TypeError)
    assert issubclass(pl.ParseValueError, ValueError)
    assert issubclass(pl.ParseSyntaxError, SyntaxError)
    assert issubclass(pl.PlacementError, ValueError)
    for cls in (pl.ParseTypeError, pl.ParseValueError, pl.ParseSyntaxError):
        assert issubclass(cls, pl.ParseError)


def test_caret_underlines_the_whole_expression():
    with pytest.raises(pl.PlacementError) as info:
        pl.program(error_programs.TensorOpInOrchestration)
    lines = str(info.value).splitlines()
    assert lines[1].strip() == "b = pl.add(a, a)  # ERR"
    assert lines[2].strip() == "^" * len("pl.add(a, a)")
    assert lines[2].index("^") == lines[1].index("pl.add")


def test_the_kernel_body_is_never_executed():
    with pytest.raises(pl.ParseSyntaxError):
        pl.program(error_programs.PrintInBody)


def test_a_break_or_continue_before_any_carried_update_parses():
    class ExitsFirst:
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            acc = 0
            for i in pl.range(n):
                if i == 1:
                    continue
                if i == 5:
                    break
                acc = acc + i
            return acc

    text = pypto.ir.as_python(pl.program(ExitsFirst))
    assert "continue" in text and "break" in text
