"""Every DSL program of programs.py parses, verifies, prints, and round-trips through the text."""

import pytest

import pypto.language as pl
from pypto import ir

from . import programs

PROGRAMS = {cls.__name__: cls for cls in programs.PROGRAMS}


class _Parsed(dict):
    """Programs parsed on first use, so that one failure names one program."""

    def __missing__(self, name):
        program = self[name] = pl.program(PROGRAMS[name])
        return program


_PARSED = _Parsed()


@pytest.fixture(scope="module")
def parsed():
    return _PARSED


def test_there_are_at_least_80_programs():
    assert len(PROGRAMS) >= 80


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_parses_and_verifies(parsed, name):
    program = parsed[name]
    assert isinstance(program, ir.Program)
    assert program.name == name
    errors = [d for d in ir.verify(program) if d.is_error]
    assert not errors, "\n".join(str(d) for d in errors)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("concise", [False, True])
def test_print_parse_print_round_trip(parsed, name, concise):
    program = parsed[name]
    text = ir.as_python(program, concise=concise)
    reparsed = pl.parse(text)
    ir.assert_structural_equal(program, reparsed, enable_auto_mapping=True)
    assert ir.as_python(reparsed, concise=concise) == text


def nodes_of(node, seen=None):
    """Every IR node reachable from ``node`` through its fields (types and attrs included)."""
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    yield node
    for name in getattr(type(node), "field_names", []):
        value = getattr(node, name)
        items = value.values() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, ir.Node):
                yield from nodes_of(item, seen)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_node_has_a_user_span(parsed, name):
    for node in nodes_of(parsed[name]):
        if isinstance(node, (ir.Expr, ir.Stmt, ir.Function, ir.Program)):
            span = node.span
            assert span.known(), f"{node.type_name} without a span: {node}"
            assert span.filename.endswith("programs.py")
            assert span.begin_line > 0 and span.begin_col > 0
