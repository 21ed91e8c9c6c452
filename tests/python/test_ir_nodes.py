"""The IR node classes from Python: construction, fields, types, errors."""

import pytest

import pypto
from pypto import ir

DT = ir.DataType


def test_every_node_class_lists_its_fields():
    assert ir.ForStmt.field_names == [
        "loop_var", "start", "stop", "step", "iter_args", "body", "return_vars", "for_kind", "attrs",
    ]
    assert ir.Var.field_names == ["name_hint", "type"]
    assert ir.TileType.field_names[:3] == ["shape", "dtype", "memory_space"]


def test_var_identity_and_unique_ids(index):
    a = ir.Var("x", index)
    b = ir.Var("x", index)
    assert a.name_hint == b.name_hint == "x"
    assert not a.same_as(b)
    assert a.unique_id != b.unique_id
    assert ir.structural_equal(a, b, enable_auto_mapping=True)
    assert not ir.structural_equal(a, b)


def test_binary_expr_deduces_promoted_dtype(index):
    x = ir.Var("x", ir.ScalarType(DT.INT32))
    e = ir.BinaryExpr(ir.BinaryOp.Add, x, ir.ConstFloat(1.5))
    assert e.type.dtype == DT.FP32
    cmp = ir.BinaryExpr(ir.BinaryOp.Lt, x, 3)
    assert cmp.type.dtype == DT.BOOL
    assert cmp.rhs.value == 3 and cmp.rhs.dtype == DT.INDEX


def test_binary_expr_on_a_tensor_is_a_type_error():
    t = ir.Var("t", ir.TensorType([64, 64], DT.FP32))
    with pytest.raises(TypeError, match=r"scalar operator '\+' needs scalar operands.*Tensor\[\[64, 64\], FP32\]"):
        ir.BinaryExpr(ir.BinaryOp.Add, t, 1)
    with pytest.raises(pypto.InvalidTypeError):
        ir.BinaryExpr(ir.BinaryOp.Add, t, 1)


def test_unknown_field_names_the_fields(index):
    with pytest.raises(TypeError, match=r"AssignStmt has no field 'target'; fields: var, value"):
        ir.AssignStmt(target=ir.Var("x", index))


def test_tensor_type_with_dynamic_dim_and_view():
    n = ir.Var("N", ir.ScalarType(DT.INDEX))
    view = ir.TensorView(strides=[n, 1], valid_shape=[32, n], pad=ir.PadValue.zero)
    t = ir.TensorType([64, n], DT.FP16, ir.TensorLayout.ND, view)
    assert t.shape[0].value == 64 and t.shape[1].same_as(n)
    assert t.view.pad == ir.PadValue.zero
    assert t.view.strides[1].value == 1


def test_dtype_bits_bytes_and_packing():
    assert DT.FP32.bits == 32 and DT.FP32.get_byte() == 4
    assert DT.INT4.bits == 4 and DT.INT4.get_byte() == 1
    assert DT.INT4.storage_bytes(3) == 2
    assert DT.BF16.get_byte() == 2 and DT.FP8E4M3FN.get_byte() == 1
    assert DT.from_name("HF8") == DT.HF8
    with pytest.raises(ValueError, match="unknown dtype 'FP12'"):
        DT.from_name("FP12")
    assert ir.promote_types(DT.INT8, DT.UINT8) == DT.INT8
    assert ir.promote_types(DT.FP16, DT.INT64) == DT.FP16


def test_call_attrs_round_trip_through_python(index):
    x = ir.Var("x", index)
    call = ir.Call(ir.Op("test.unregistered"), [x, 2], {"target_memory": ir.MemorySpace.Vec, "n": 3, "dims": [1, 2]})
    assert call.kwargs == {"target_memory": ir.MemorySpace.Vec, "n": 3, "dims": [1, 2]}
    assert call.type.type_name == "UnknownType"
    assert call.args[1].value == 2


def test_for_loop_with_iter_args(index):
    i = ir.Var("i", index)
    acc0 = ir.Var("acc0", index)
    acc = ir.IterArg("acc", index, acc0)
    nxt = ir.Var("next", index)
    total = ir.Var("total", index)
    body = ir.SeqStmts([ir.AssignStmt(nxt, ir.BinaryExpr(ir.BinaryOp.Add, acc, i)), ir.YieldStmt([nxt])])
    loop = ir.ForStmt(i, 0, 10, 1, [acc], body, [total], ir.ForKind.Sequential)
    assert loop.iter_args[0].init_value.same_as(acc0)
    assert loop.for_kind == ir.ForKind.Sequential
    assert isinstance(loop.body.stmts[0], ir.AssignStmt)


def test_program_sorts_functions_and_rejects_duplicates(index):
    def fn(name):
        return ir.Function(name, ir.FunctionType.Opaque, [], [], [], ir.SeqStmts([]))

    p = ir.Program("p", [fn("b"), fn("a")])
    assert [f.name for f in p.functions] == ["a", "b"]
    assert p.get_function("b").name == "b"
    with pytest.raises(ValueError, match="defines function 'a' twice"):
        ir.Program("p", [fn("a"), fn("a")])


def test_serialization_round_trip(tmp_path, index):
    x = ir.Var("x", index)
    fn = ir.Function("f", ir.FunctionType.Opaque, [x], [ir.ParamDirection.In], [index],
                     ir.ReturnStmt([ir.BinaryExpr(ir.BinaryOp.Mul, x, 2)]))
    prog = ir.Program("p", [fn])
    back = ir.deserialize(ir.serialize(prog))
    assert ir.structural_equal(prog, back, enable_auto_mapping=True)
    ir.save(prog, tmp_path / "p.pir")
    assert ir.structural_equal(prog, ir.load(tmp_path / "p.pir"), enable_auto_mapping=True)
    with pytest.raises(ValueError):
        ir.deserialize(b"not msgpack at all")


def test_incomplete_nodes_are_rejected_at_construction(index):
    with pytest.raises(TypeError, match=r"ForStmt: field 'loop_var' is required"):
        ir.ForStmt()
    with pytest.raises(TypeError, match=r"Call: field 'args' holds None at index 1"):
        ir.Call(ir.Op("test.x"), [ir.Var("x", index), None])
    stmt = ir.IfStmt(ir.ConstBool(True), ir.SeqStmts([]))
    assert stmt.else_body is None
