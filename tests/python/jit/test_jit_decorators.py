import functools

import fake_pl as pl
import pytest

from pypto import ir
from pypto.jit import JITFunction, jit


def scale(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
    """Doubles a."""
    return out


@pytest.mark.parametrize("decorator, kind", [
    (jit, "orchestration"),
    (jit.incore, "incore"),
    (jit.inline, "inline"),
    (jit.opaque, "opaque"),
    (jit.host, "host"),
])
def test_each_bare_decorator_makes_a_kernel_of_its_kind(decorator, kind):
    kernel = decorator(scale)
    assert isinstance(kernel, JITFunction)
    assert kernel.kind == kind
    assert kernel.fn is scale
    assert kernel.level is None
    assert kernel.external_source is None
    assert kernel.options == {}


def test_kernels_keep_the_functions_name_doc_and_wrapped():
    kernel = jit(scale)
    assert kernel.__name__ == "scale"
    assert kernel.__doc__ == "Doubles a."
    assert kernel.__wrapped__ is scale
    assert kernel.__qualname__ == scale.__qualname__
    assert functools.WRAPPER_ASSIGNMENTS


def test_incore_takes_a_level():
    kernel = jit.incore(level=pl.Level.CORE_GROUP)(scale)
    assert kernel.kind == "incore"
    assert kernel.level == ir.Level.CORE_GROUP
    assert kernel.options == {"level": ir.Level.CORE_GROUP}


@pytest.mark.parametrize("decorator", [jit, jit.incore, jit.inline, jit.opaque, jit.host])
def test_every_decorator_keeps_an_external_source(decorator):
    kernel = decorator(external_source="kernels/scale.cpp")(scale)
    assert kernel.external_source == "kernels/scale.cpp"
    assert kernel.options == {"external_source": "kernels/scale.cpp"}


def test_decorator_syntax_on_a_definition():
    @jit.incore(level=pl.Level.AIV)
    def body(a: pl.Tensor[[8], pl.FP16]):
        return a

    assert body.kind == "incore" and body.level == ir.Level.AIV and body.__name__ == "body"


def test_unknown_option_names_the_accepted_ones():
    with pytest.raises(TypeError, match=r"@pl.jit.inline got an unknown option 'level'; it accepts external_source"):
        jit.inline(level=pl.Level.AIV)


def test_level_must_be_a_pl_level():
    with pytest.raises(TypeError, match=r"takes a pl.Level such as pl.Level.CORE_GROUP, got 2"):
        jit.incore(level=2)


def test_external_source_must_be_a_path_string():
    with pytest.raises(TypeError, match=r"external_source=...\) takes a path to a C\+\+ file"):
        jit(external_source=42)


def test_decorating_a_kernel_twice_is_rejected():
    with pytest.raises(TypeError, match=r"scale, which is already decorated \(orchestration kernel\)"):
        jit.incore(jit(scale))


def test_star_parameters_are_rejected():
    def varargs(*tensors):
        return tensors

    with pytest.raises(TypeError, match=r"kernels take named parameters, not \*tensors"):
        jit(varargs)


def test_repr_names_kind_and_function():
    assert repr(jit.opaque(scale)) == "<JITFunction opaque scale>"
    assert repr(jit.incore) == "<@pl.jit.incore decorator>"
