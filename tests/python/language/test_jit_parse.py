"""parse_jit: the entry point the JIT specializes through."""

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir

from . import jit_programs as jp

F32 = ir.TensorType([64, 64], pl.FP32)


def test_entry_with_sub_function_discovered_by_name():
    program = pl.parse_jit(jp.entry, param_types={"a": F32, "out": F32}, scalar_values={}, program_name="p")
    names = [f.name for f in program.functions]
    assert names == ["_entry", "_scale"]
    main, sub = program.get_function("_entry"), program.get_function("_scale")
    assert main.func_type == pl.FunctionType.Orchestration
    assert sub.func_type == pl.FunctionType.InCore
    assert [p.name_hint for p in main.params] == ["a", "out", "n"]
    assert main.param_directions[1] == ir.ParamDirection.Out
    ir.assert_structural_equal(sub.params[0].type, F32)
    text = ir.as_python(program)
    assert "self._scale(a, out" in text
    assert not [d for d in ir.verify(program) if d.is_error]
    ir.assert_structural_equal(pl.parse(text), program, enable_auto_mapping=True)


def test_scalars_specialize_as_constants():
    program = pl.parse_jit(jp.entry, param_types={"a": F32, "out": F32}, scalar_values={"n": 3},
                           program_name="p")
    main = program.get_function("_entry")
    assert [p.name_hint for p in main.params] == ["a", "out"]
    assert "pl.range(0, 3, 1, init_values=(out,))" in ir.as_python(program)


def test_inline_sub_functions_are_spliced():
    program = pl.parse_jit(jp.entry_with_scope, param_types={"a": F32, "b": F32}, scalar_values={},
                           program_name="p")
    assert [f.name for f in program.functions] == ["_entry_with_scope"]
    text = ir.as_python(program)
    assert "pl.tensor.add(a, a)" in text


def test_a_jit_entry_does_not_call_another_entry():
    with pytest.raises(pl.ParseTypeError, match="a @pl.jit function does not call another one") as info:
        pl.parse_jit(jp.calls_entry, param_types={"a": F32, "out": F32}, scalar_values={}, program_name="p")
    assert "@pl.jit.incore" in info.value.hint


def test_incore_entry_keeps_level_and_external_source():
    program = pl.parse_jit(jp.kernel, param_types={"a": F32}, scalar_values={"rows": 16}, program_name="k")
    f = program.get_function("_kernel")
    assert f.func_type == pl.FunctionType.InCore
    assert f.level == pl.Level.CHIP_DIE
    # Resolved against the defining file, so the backend finds it wherever the program is compiled.
    assert f.attrs["external_source"] == str((Path(jp.__file__).parent / "../kernels/fixtures/scale_add.cpp").resolve())


def test_unannotated_param_without_a_type_is_an_error():
    with pytest.raises(pl.ParseTypeError, match="parameter 'a' needs a type annotation"):
        pl.parse_jit(jp.untyped, param_types={"b": F32}, scalar_values={}, program_name="u")
    program = pl.parse_jit(jp.untyped, param_types={"a": F32, "b": F32}, scalar_values={}, program_name="u")
    assert len(program.functions[0].params) == 2


def test_a_specialized_scalar_rebound_in_a_loop_is_carried():
    program = pl.parse_jit(jp.rebinds_specialized, param_types={"a": F32}, scalar_values={"n": 5},
                           program_name="r")
    text = ir.as_python(program, concise=True)
    assert "for i, (n,) in pl.range(0, 4, 1, init_values=(5,)):" in text
    assert "if n_2 > 2:" in text
    ir.assert_structural_equal(pl.parse(text), program, enable_auto_mapping=True)


def test_quickstart_tensor_level_entry():
    program = pl.parse_jit(jp.accumulate, param_types={}, scalar_values={}, program_name="acc")
    text = ir.as_python(program, concise=True)
    assert "with pl.at(level=pl.Level.CORE_GROUP):" in text
    assert "for i, (t_1,) in pl.range(0, 3, 1, init_values=(t,)):" in text
    assert "out_1 = pl.tensor.assemble(out, pl.tensor.mul(t_3, t_3), [0, 0])" in text
    assert not [d for d in ir.verify(program) if d.is_error]


def test_quickstart_sub_function_dispatch():
    program = pl.parse_jit(jp.add_program, param_types={}, scalar_values={}, program_name="add")
    assert [f.name for f in program.functions] == ["_add_kernel", "_add_program"]
    assert not [d for d in ir.verify(program) if d.is_error]


def test_a_host_entry_dispatches_jit_entries_by_name():
    """A host orchestrator's dispatch names the chip program, which is compiled on its own when a rank runs it."""
    program = pl.parse_jit(jp.host_main, param_types={"a": ir.TensorType([128, 128], pl.FP32),
                                                      "out": ir.TensorType([128, 128], pl.FP32)},
                           scalar_values={}, program_name="h")
    assert [f.name for f in program.functions] == ["_host_main"]
    host = program.get_function("_host_main")
    assert (host.level, host.role) == (pl.Level.HOST, pl.Role.Orchestrator)
    assert 'pld.system.dispatch(0, a, a, out, program="_add_program")' in ir.as_python(program)


def test_arguments_of_a_discovered_call_are_evaluated_once():
    program = pl.parse_jit(jp.nested_call, param_types={"a": F32, "out": F32}, scalar_values={},
                           program_name="n")
    text = ir.as_python(program, concise=True)
    assert text.count("pl.tensor.add(a, a)") == 1
    assert "self._scale(y, out)" in text


def test_jit_entry_scopes_name_their_tasks():
    program = pl.parse_jit(jp.two_stage, param_types={"x": F32, "scratch": F32, "out": F32}, scalar_values={},
                           program_name="p")
    text = ir.as_python(program)
    assert "with pl.at(level=pl.Level.CORE_GROUP) as first:" in text
    assert "with pl.at(level=pl.Level.CORE_GROUP, deps=[first]) as second:" in text
    assert not [d for d in ir.verify(program) if d.is_error]
    ir.assert_structural_equal(pl.parse(text), program, enable_auto_mapping=True)
