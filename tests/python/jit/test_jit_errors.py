"""Wrong calls name the parameter, expected vs. actual, and the caller's line with a caret."""

import inspect

import fake_pl as pl
import pytest
import torch

import pypto
from pypto.jit import KernelArgumentError, KernelShapeError, jit
from pypto.runtime import RunConfig

THIS_FILE = __file__


@jit
def matmul(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
           out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], alpha: pl.Scalar[pl.INT32] = 1):
    return out


A = torch.zeros(64, 64)


def call_line():
    """The line of the call: the one after the `with pytest.raises` that follows this call."""
    return inspect.currentframe().f_back.f_lineno + 2


def assert_points_at(error, line, caret_under):
    """The message starts with this file and line, then shows the line with carets under `caret_under`."""
    text = str(error)
    header, source, carets = text.split("\n")[:3]
    assert header.startswith(f"{THIS_FILE}:{line}:")
    assert error.filename == THIS_FILE and error.lineno == line
    start = source.index(caret_under)
    assert carets == " " * start + "^" * len(caret_under)
    assert isinstance(error, pypto.Error)


def test_too_many_arguments():
    extra = A
    line = call_line()
    with pytest.raises(TypeError) as info:
        matmul(A, A, A, 2, extra)
    assert isinstance(info.value, KernelArgumentError)
    assert "matmul(a, b, out, alpha) takes 4 arguments but 5 were given" in str(info.value)
    assert_points_at(info.value, line, "extra")


def test_too_few_arguments():
    line = call_line()
    with pytest.raises(TypeError) as info:
        matmul(A, A)
    assert "matmul(a, b, out, alpha) is missing argument 'out'" in info.value.message
    assert_points_at(info.value, line, "matmul(A, A)")


def test_wrong_dtype_against_the_annotation():
    half = A.half()
    line = call_line()
    with pytest.raises(TypeError) as info:
        matmul(A, half, A)
    assert ("matmul(): parameter 'b' expects dtype FP32 (pl.Tensor[[64, 64], pl.FP32]) but got a torch tensor "
            "of dtype FP16") in info.value.message
    assert_points_at(info.value, line, "half")


def test_wrong_shape_against_the_annotation():
    small = torch.zeros(64, 32)
    line = call_line()
    with pytest.raises(ValueError) as info:
        matmul(A, A, out=small)
    assert isinstance(info.value, KernelShapeError)
    assert ("parameter 'out' expects shape [64, 64] (pl.Out[pl.Tensor[[64, 64], pl.FP32]]) but got shape "
            "[64, 32]: dimension 1 is 32, not 64") in info.value.message
    assert_points_at(info.value, line, "out=small")


def test_wrong_rank():
    flat = torch.zeros(4096)
    line = call_line()
    with pytest.raises(ValueError) as info:
        matmul(flat, A, A)
    assert ("parameter 'a' expects a rank-2 tensor (pl.Tensor[[64, 64], pl.FP32]) but got shape [4096]"
            in str(info.value))
    assert_points_at(info.value, line, "flat")


def test_a_scalar_where_a_tensor_is_expected():
    line = call_line()
    with pytest.raises(TypeError) as info:
        matmul(A, 3.0, A)
    assert ("parameter 'b' is annotated pl.Tensor[[64, 64], pl.FP32] (a tensor) but got the float 3.0"
            in str(info.value))
    assert_points_at(info.value, line, "3.0")


def test_a_tensor_where_a_scalar_is_expected():
    with pytest.raises(TypeError, match=r"parameter 'alpha' is annotated pl.Scalar\[pl.INT32\] \(a scalar\) "
                                        r"but got a torch tensor"):
        matmul(A, A, A, A)


def test_a_float_for_an_integer_scalar():
    with pytest.raises(TypeError, match=r"parameter 'alpha' expects a INT32 scalar .* but got the float 0.5"):
        matmul.specialize(A, A, A, 0.5)


def test_an_unsupported_argument_type():
    with pytest.raises(TypeError, match=r"parameter 'a' got a builtins.list; pass a torch tensor, a numpy array"):
        matmul([1, 2], A, A)


def test_compile_options_go_through_run_config():
    line = call_line()
    with pytest.raises(TypeError) as info:
        matmul.compile(A, A, A, skip_ptoas=True)
    assert info.value.message.startswith("compile options go through RunConfig: 'skip_ptoas' is not a parameter of "
                                         "matmul(a, b, out, alpha)")
    assert "RunConfig has no 'skip_ptoas' option" in info.value.message
    assert_points_at(info.value, line, "skip_ptoas=True")


def test_run_config_fields_as_keywords_say_how_to_pass_them():
    with pytest.raises(TypeError, match=r"compile options go through RunConfig: 'platform' .* write "
                                        r"kernel.compile\(..., config=RunConfig\(platform=...\)\)"):
        matmul.compile(A, A, A, platform="a5sim")
    with pytest.raises(TypeError, match=r"compile options go through RunConfig: 'dump_passes'.* write "
                                        r"kernel\(..., config=RunConfig\(dump_passes=...\)\)"):
        matmul(A, A, A, dump_passes=True)
    with pytest.raises(TypeError, match=r"compile options go through RunConfig: 'pipeline'"):
        matmul.lower(A, A, A, pipeline="debug")


def test_unknown_keywords_are_rejected():
    with pytest.raises(TypeError, match=r"matmul\(a, b, out, alpha\) got an unexpected keyword argument 'beta'"):
        matmul(A, A, A, beta=2)


def test_a_parameter_given_twice():
    with pytest.raises(TypeError, match=r"got two values for 'a'"):
        matmul(A, A, A, a=A)


def test_keywords_naming_kernel_parameters_are_accepted():
    spec = matmul.specialize(A, A, out=A, alpha=4, config=RunConfig())
    assert spec.scalar_values == {"alpha": 4}


def test_default_scalars_are_used():
    assert matmul.specialize(A, A, A).scalar_values == {"alpha": 1}


def test_an_annotation_that_cannot_be_evaluated_points_at_the_annotation():
    @jit
    def broken(a: "pl.Tensor[[UNDEFINED_DIM, 4], pl.FP32]"):
        return a

    with pytest.raises(TypeError) as info:
        broken(torch.zeros(2, 4))
    assert "cannot evaluate UNDEFINED_DIM in the kernel's namespace" in info.value.message
    assert info.value.filename == THIS_FILE
    assert info.value.lineno == broken.fn.__code__.co_firstlineno + 1
    assert str(info.value).startswith(f"{THIS_FILE}:{info.value.lineno}:")


def test_a_dimension_that_is_not_an_int_points_at_the_dimension():
    @jit
    def fractional(a: pl.Tensor[[2.5, 4], pl.FP32]):
        return a

    with pytest.raises(TypeError) as info:
        fractional(torch.zeros(2, 4))
    assert "parameter 'a': a dimension is an int or pl.dynamic(\"N\"), got 2.5" in info.value.message
    line = fractional.fn.__code__.co_firstlineno + 1
    column = open(THIS_FILE).read().splitlines()[line - 1].index("2.5") + 1
    assert (info.value.lineno, info.value.col_offset) == (line, column)


def test_an_argument_on_a_later_line_of_the_call_is_pointed_at():
    half = A.half()
    with pytest.raises(TypeError) as info:
        matmul(A,
               half,
               A)
    line = inspect.currentframe().f_lineno - 2  # the line of `half,`
    assert info.value.lineno == line
    header, source, carets = str(info.value).split("\n")[:3]
    assert header.startswith(f"{THIS_FILE}:{line}:16: matmul(): parameter 'b' expects dtype FP32")
    assert source.strip() == "half,"
    assert carets == " " * source.index("half") + "^^^^"
