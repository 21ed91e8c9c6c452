"""@pl.function on module-level functions and closures, @pl.program, @pl.inline."""

import pytest

import pypto.language as pl
from pypto import ir

from . import standalone


def test_module_level_function_is_parsed_at_decoration():
    f = standalone.scale_rows
    assert isinstance(f, ir.Function)
    assert f.func_type == pl.FunctionType.InCore
    assert "pl.tensor.muls(a, 3.0)" in ir.as_python(f)


def test_python_constants_fold_at_parse_time():
    text = ir.as_python(standalone.count)
    assert "total_2: pl.Scalar[pl.INDEX] = total_1 + 3" in text


def test_closure_values_are_constants():
    f = standalone.make_offset_kernel(7)
    assert "return n + 7" in ir.as_python(f)


def test_program_class_decorator_returns_a_program():
    @pl.program
    class Local:
        @pl.function
        def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            return n * 2

    assert isinstance(Local, ir.Program)
    assert Local.name == "Local"


def test_locals_of_the_defining_scope_resolve():
    width = 32

    @pl.program
    class UsesLocal:
        @pl.function(type=pl.FunctionType.InCore)
        def f(self, a: pl.Tensor[[width, width], pl.FP16]) -> pl.Tensor[[width, width], pl.FP16]:
            return pl.exp(a)

    assert "pl.Tensor[[32, 32], pl.FP16]" in ir.as_python(UsesLocal)


def test_methods_without_pl_function_are_rejected():
    with pytest.raises(pl.ParseSyntaxError, match="needs @pl.function"):
        @pl.program
        class Bare:
            def f(self):
                return


def test_inline_helpers_cannot_be_called_directly():
    helper = pl.inline(lambda x: x)
    with pytest.raises(pl.KernelOnlyError):
        helper(1)


def test_locals_in_annotations_of_a_nested_function_resolve():
    rows = 48

    @pl.function(type=pl.FunctionType.InCore)
    def f(a: pl.Tensor[[rows, 16], pl.FP32]) -> pl.Tensor[[rows, 16], pl.FP32]:
        return pl.neg(a)

    assert "pl.Tensor[[48, 16], pl.FP32]" in ir.as_python(f)


def test_nodes_print_themselves():
    from . import programs

    program = pl.program(programs.TileAdd)
    assert program.as_python() == ir.as_python(program)
    assert program.as_python(prefix="ir", concise=True) == ir.as_python(program, prefix="ir", concise=True)
    assert program.functions[0].as_python() == ir.as_python(program.functions[0])
