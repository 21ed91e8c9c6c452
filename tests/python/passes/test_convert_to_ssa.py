"""ConvertToSSA on programs built with the IR node bindings (the parser always emits SSA)."""

from pathlib import Path

import pytest
from language import programs

import pypto
import pypto.language as pl
from pypto import ir, passes

DT = ir.DataType
INDEX = ir.ScalarType(DT.INDEX)
BOOL = ir.ScalarType(DT.BOOL)


def add(a, b):
    return ir.BinaryExpr(ir.BinaryOp.Add, a, b)


def non_ssa_program():
    """acc = 0; for i in range(n): acc = acc + i; while acc < 100: acc = acc * 2; if c: acc = acc + 1; return acc

    One Var object `acc` is assigned five times, the way a front end that
    reuses its variables would build it.
    """
    n, c, i, acc = ir.Var("n", INDEX), ir.Var("c", BOOL), ir.Var("i", INDEX), ir.Var("acc", INDEX)
    loop = ir.ForStmt(i, 0, n, 1, [], ir.SeqStmts([ir.AssignStmt(acc, add(acc, i))]), [])
    grow = ir.WhileStmt(condition=ir.BinaryExpr(ir.BinaryOp.Lt, acc, 100), iter_args=[],
                        body=ir.SeqStmts([ir.AssignStmt(acc, ir.BinaryExpr(ir.BinaryOp.Mul, acc, 2))]),
                        return_vars=[])
    bump = ir.IfStmt(c, ir.SeqStmts([ir.AssignStmt(acc, add(acc, 1))]), None, [])
    body = ir.SeqStmts([ir.AssignStmt(acc, ir.ConstInt(0)), loop, grow, bump, ir.ReturnStmt([acc])])
    fn = ir.Function("f", ir.FunctionType.Opaque, [n, c], [], [INDEX], body)
    return ir.Program("p", [fn])


def pipeline(tmp_path, passes_list, input_properties):
    path = tmp_path / "ssa.yaml"
    path.write_text("name: ssa_first\nverify: true\n"
                    f"input_properties: [{', '.join(input_properties)}]\n"
                    "passes:\n" + "".join(f"  - {p}\n" for p in passes_list))
    return passes.PassManager(str(path))


def codes(program):
    return {d.code for d in ir.verify(program) if d.is_error}


def test_the_input_is_not_ssa():
    assert "MULTIPLE_ASSIGNMENT" in codes(non_ssa_program())


def test_a_pipeline_that_starts_with_convert_to_ssa_accepts_non_ssa_input(tmp_path):
    manager = pipeline(tmp_path, ["ConvertToSSA", "Simplify"], [])
    assert manager.pass_names == ["ConvertToSSA", "Simplify"]
    lowered = manager.run(non_ssa_program(), dump_dir=tmp_path)

    assert codes(lowered) == set()
    stmts = lowered.get_function("f").body.stmts
    loop, grow, bump, ret = stmts[-4:]
    assert [a.name_hint for a in loop.iter_args] == ["acc__iter_v1"]
    assert [v.name_hint for v in loop.return_vars] == ["acc__rv_v2"]
    assert grow.iter_args[0].init_value.same_as(loop.return_vars[0])
    assert bump.condition.name_hint == "c"
    assert bump.else_body.stmts[0].values[0].same_as(grow.return_vars[0])
    assert ret.values[0].same_as(bump.return_vars[0])
    dumped = (tmp_path / "passes_dump" / "01_ConvertToSSA.py").read_text()
    assert "pl.yield_(" in dumped and "acc__phi_v" in dumped


def test_without_convert_to_ssa_the_verifier_rejects_the_same_input(tmp_path):
    manager = pipeline(tmp_path, ["Simplify"], ["SSAForm"])
    with pytest.raises(pypto.VerificationError, match="MULTIPLE_ASSIGNMENT"):
        manager.run(non_ssa_program())


def test_ssa_input_comes_back_unchanged(tmp_path):
    converted = pipeline(tmp_path, ["ConvertToSSA"], []).run(non_ssa_program())
    again = pipeline(tmp_path, ["ConvertToSSA"], ["SSAForm"]).run(converted)
    assert again.same_as(converted)
    assert ir.structural_equal(again, converted)


def test_a_value_defined_on_one_path_only_is_an_error_naming_the_variable(tmp_path):
    c, y = ir.Var("c", BOOL), ir.Var("y", INDEX)
    body = ir.SeqStmts([ir.IfStmt(c, ir.SeqStmts([ir.AssignStmt(y, 1)]), None, []), ir.ReturnStmt([y])])
    program = ir.Program("p", [ir.Function("g", ir.FunctionType.Opaque, [c], [], [INDEX], body)])
    with pytest.raises(ValueError, match=r"ConvertToSSA: in function 'g', 'y' is used .* assigned only in the then "
                                         r"branch .* assign 'y' before the if, or in both branches"):
        pipeline(tmp_path, ["ConvertToSSA"], []).run(program)


def test_tensor_values_are_carried_through_scopes_loops_and_ifs_and_type_check(tmp_path):
    """with pl.at(...): y = x + 1; for i in range(n): y = y * 2; if c: y = y + 3
    return y   -- all on tensors; the scope does not hide y."""
    tensor = ir.TensorType([16, 16], DT.FP32)
    x, n, c, i, y = (ir.Var("x", tensor), ir.Var("n", INDEX), ir.Var("c", BOOL), ir.Var("i", INDEX),
                     ir.Var("y", tensor))

    def scaled(op, value, source=y):
        return ir.AssignStmt(y, ir.Call(ir.Op(op), [source, ir.ConstFloat(value)]))

    scope = ir.ScopeStmt(scope_kind=ir.ScopeKind.InCore, body=ir.SeqStmts([
        scaled("tensor.adds", 1.0, source=x),
        ir.ForStmt(i, 0, n, 1, [], ir.SeqStmts([scaled("tensor.muls", 2.0)]), []),
        ir.IfStmt(c, ir.SeqStmts([scaled("tensor.adds", 3.0)]), None, []),
    ]))
    body = ir.SeqStmts([scope, ir.ReturnStmt([y])])
    program = ir.Program("p", [ir.Function("k", ir.FunctionType.Opaque, [x, n, c], [], [tensor], body)])

    lowered = pipeline(tmp_path, ["ConvertToSSA"], []).run(program)

    assert [str(d) for d in ir.verify(lowered) if d.is_error] == []
    scope, ret = lowered.get_function("k").body.stmts
    first, loop, branch = scope.body.stmts
    assert ir.structural_equal(loop.iter_args[0].type, tensor)
    assert loop.iter_args[0].init_value.same_as(first.var)
    inside = loop.body.stmts[0]
    assert inside.value.args[0].same_as(loop.iter_args[0])
    assert loop.body.stmts[-1].values[0].same_as(inside.var)
    assert branch.else_body.stmts[0].values[0].same_as(loop.return_vars[0])
    assert ret.values[0].same_as(branch.return_vars[0])


REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def convert_only(tmp_path_factory):
    path = tmp_path_factory.mktemp("ssa") / "only.yaml"
    path.write_text("name: only\nverify: false\npasses: [ConvertToSSA]\n")
    return passes.PassManager(str(path)).run


@pytest.mark.parametrize("cls", programs.PROGRAMS, ids=lambda cls: cls.__name__)
def test_every_front_end_program_comes_back_as_the_same_object(cls, convert_only):
    program = pl.program(cls)
    assert convert_only(program).same_as(program)


@pytest.mark.parametrize("case", sorted((REPO / "tests" / "passes").glob("*/*.input.py")), ids=lambda p: p.stem)
def test_every_printed_ir_case_input_comes_back_as_the_same_object(case, convert_only):
    program = pl.parse(case.read_text())
    assert convert_only(program).same_as(program)
