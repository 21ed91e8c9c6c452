"""The operator registry from Python."""

import pytest

from pypto import ir, ops

DT = ir.DataType


def test_create_deduces_the_result_type():
    a = ir.Var("a", ir.TensorType([64, 32], DT.FP16))
    b = ir.Var("b", ir.TensorType([1, 32], DT.FP32))
    call = ops.create("tensor.add", [a, b])
    assert isinstance(call.type, ir.TensorType)
    assert [d.value for d in call.type.shape] == [64, 32]
    assert call.type.dtype == DT.FP32


def test_bad_call_names_the_op_and_the_argument():
    a = ir.Var("a", ir.TensorType([64, 32], DT.FP32))
    b = ir.Var("b", ir.TensorType([16, 32], DT.FP32))
    with pytest.raises(TypeError, match=r"tensor\.add: .*\[64, 32\].*\[16, 32\]"):
        ops.create("tensor.add", [a, b])
    with pytest.raises(ValueError, match=r"unknown op 'tensor\.addd'; did you mean tensor\.add"):
        ops.create("tensor.addd", [a, b])
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'fast'"):
        ops.create("tensor.exp", [a], {"fast": True})


def test_load_into_left_is_rejected_with_the_fix():
    t = ir.Var("t", ir.TensorType([64, 64], DT.FP16))
    with pytest.raises(TypeError, match=r"load to MemorySpace\.Mat, then tile\.move"):
        ops.create("tile.load", [t, ir.MakeTuple([0, 0]), ir.MakeTuple([64, 64])],
                   {"target_memory": ir.MemorySpace.Left})


def test_listing_is_sorted_and_describes_schemas():
    names = [op.name for op in ops.list_ops()]
    assert names == sorted(names) and len(names) == len(set(names))
    load = ops.get("tile.load")
    assert [a.name for a in load.args][:3] == ["tensor", "offsets", "shapes"]
    assert load.kwargs[0].name == "target_memory" and load.kwargs[0].enum_type == "MemorySpace"
    assert load.placement == "InCore code only"
    store = ops.get("tile.store")
    assert store.output_reuses_input == 2
    assert store.arg_effects[2] == "write"
