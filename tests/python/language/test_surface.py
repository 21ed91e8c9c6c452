"""The pl namespace: dtypes, enums, annotations, op namespaces and dispatchers."""

import pytest

import pypto.language as pl
from pypto.language._ops import COMM_OPS, HOST_OPS
from pypto import ir, ops


def test_every_dtype_is_a_pl_constant_with_its_size():
    for dt in ir.DataType.all():
        assert getattr(pl, dt.name) == dt
    assert pl.FP32.get_byte() == 4
    assert pl.FP16.get_byte() == 2
    assert pl.BF16.get_byte() == 2
    assert pl.INT8.get_byte() == 1
    assert pl.INT4.get_byte() == 1
    assert pl.INDEX.get_byte() == 8


def test_enums_are_the_ir_enums():
    assert pl.Mem is pl.MemorySpace is ir.MemorySpace
    assert pl.Mem.Vec == ir.MemorySpace.Vec
    assert pl.Level.CORE_GROUP == ir.Level.CORE_GROUP
    assert pl.Role.Orchestrator == ir.Role.Orchestrator
    assert pl.FunctionType.InCore == ir.FunctionType.InCore
    assert pl.PadValue.zero == ir.PadValue.zero
    assert pl.SplitMode.UP_DOWN == ir.SplitMode.UP_DOWN
    assert pl.TensorLayout.DN == ir.TensorLayout.DN
    assert pl.ForKind.Pipeline == ir.ForKind.Pipeline


def test_annotations_record_their_arguments():
    n = pl.dynamic("N")
    spec = pl.Tensor[[64, n], pl.FP32]
    assert spec.shape == (64, n) and spec.dtype == pl.FP32
    assert pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec].memory_space == pl.Mem.Vec
    assert pl.Scalar[pl.INT32].dtype == pl.INT32
    assert pl.Array[8, pl.TASK_ID].size == 8
    assert len(pl.Tuple[pl.Scalar[pl.INT32], pl.Scalar[pl.FP32]].fields) == 2
    assert pl.Out[spec].direction == ir.ParamDirection.Out
    assert pl.InOut[spec].direction == ir.ParamDirection.InOut
    with pytest.raises(TypeError, match="dtype"):
        pl.Tensor[[64], 64]


def test_dynamic_is_one_dimension_per_call():
    a, b = pl.dynamic("N"), pl.dynamic("N")
    assert a.var is not b.var
    assert a.var.name_hint == "N"
    assert pl.dynamic("M", pl.INT64).var.type.dtype == pl.INT64


def test_op_namespaces_cover_the_registry():
    """Every op is reached through pl.<namespace>, except the distributed ones (kernels' and host orchestrators'),
    which are pld.<namespace>'s."""
    import pypto.language.distributed as pld
    for opdef in ops.list_ops():
        ns, _, short = opdef.name.partition(".")
        if ns in ("tensor", "tile", "system", "array"):
            distributed = opdef.name in COMM_OPS | HOST_OPS
            module, other = (pld, pl) if distributed else (pl, pld)
            fn = getattr(getattr(module, ns), short)
            assert fn.op_name == opdef.name
            assert fn.signature == opdef.signature
            assert getattr(getattr(other, ns, None), short, None) is None or not distributed


def test_ops_cannot_run_outside_a_kernel():
    with pytest.raises(pl.KernelOnlyError, match="pl.tile.add is only meaningful inside a parsed kernel"):
        pl.tile.add(1, 2)
    with pytest.raises(pl.KernelOnlyError, match="pl.add"):
        pl.add(1, 2)
    with pytest.raises(pl.KernelOnlyError, match="pl.range"):
        pl.range(4)


def test_dispatchers_name_both_levels():
    assert (pl.add.tensor_op, pl.add.tile_op) == ("tensor.add", "tile.add")
    assert (pl.load.tensor_op, pl.load.tile_op) == (None, "tile.load")
    assert pl.row_sum.tile_op == "tile.row_sum"
    assert pl.matmul.tensor_op == "tensor.matmul"


def test_unknown_attribute_suggests_the_level_specific_spelling():
    with pytest.raises(AttributeError, match=r"use the level-specific op pl\.tile\.lrelu"):
        pl.lrelu  # noqa: B018
    with pytest.raises(AttributeError, match=r"did you mean pl\.FP32"):
        pl.FP23  # noqa: B018
