"""`with pl.at(...) as tid:` / `with pl.spmd(n) as tid:` task ids feeding later `deps=`, and full-line
comments of DSL text kept through pl.parse and printing."""

import pytest

import pypto.language as pl
from pypto import ir

from . import programs

TASK_ID = ir.ScalarType(pl.TASK_ID)


def scopes_of(function: ir.Function) -> list:
    return [s for s in function.body.stmts if isinstance(s, ir.ScopeStmt)]


def test_task_ids_bind_after_the_scope_and_feed_later_deps():
    main = pl.program(programs.ScopeTaskIds).get_function("main")
    first, second, grid, last = scopes_of(main)
    assert first.task_id.name_hint == "first" and ir.structural_equal(first.task_id.type, TASK_ID)
    assert second.attrs["deps"][0].same_as(first.task_id)
    assert grid.scope_kind == ir.ScopeKind.Spmd
    assert [d.name_hint for d in grid.attrs["deps"]] == ["first", "second"]
    assert last.task_id is None and last.attrs["deps"][0].same_as(grid.task_id)


def test_deps_take_array_elements_and_whole_arrays():
    main = pl.program(programs.ScopeTaskIdArrays).get_function("main")
    first, second, last = scopes_of(main)
    assert not first.task_id.same_as(second.task_id)
    element = second.attrs["deps"][0]
    assert ir.structural_equal(element.type, TASK_ID)
    whole = last.attrs["deps"][0]
    assert isinstance(whole.type, ir.ArrayType) and whole.type.dtype == pl.TASK_ID


def test_a_task_id_rebound_in_a_loop_is_loop_carried():
    main = pl.program(programs.ScopeTaskIdInLoop).get_function("main")
    first, loop, last = main.body.stmts[0], main.body.stmts[1], main.body.stmts[2]
    carried = loop.iter_args[0]
    assert carried.name_hint == "tid" and carried.init_value.same_as(first.task_id)
    inner = loop.body.stmts[0]
    assert inner.attrs["deps"][0].same_as(carried)
    assert loop.body.stmts[-1].values[0].same_as(inner.task_id)
    assert last.attrs["deps"][0].same_as(loop.return_vars[0])


SAME_NAME_TEXT = '''\
# pypto.program: SameName
import pypto.language as pl

@pl.program
class SameName:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP) as tid:
            b = pl.tensor.exp(a)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid:
            c = pl.tensor.exp(b)
        with pl.spmd(2, deps=[tid]) as tid:
            with pl.at(level=pl.Level.CORE_GROUP):
                d = pl.tensor.exp(c)
        return d
'''


def test_reused_task_id_names_print_distinctly_and_round_trip():
    program = pl.parse(SAME_NAME_TEXT)
    text = ir.as_python(program, concise=True)
    assert "with pl.at(level=pl.Level.CORE_GROUP) as tid:" in text
    assert "with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid_1:" in text
    assert "with pl.spmd(2, deps=[tid_1]) as tid_2:" in text
    again = pl.parse(text)
    ir.assert_structural_equal(program, again, enable_auto_mapping=True)
    assert ir.as_python(again, concise=True) == text
    assert not [d for d in ir.verify(program) if d.is_error]


def test_deps_pointing_at_another_task_are_not_equal():
    crossed = SAME_NAME_TEXT.replace("pl.spmd(2, deps=[tid]) as tid", "pl.spmd(2) as tid")
    assert not ir.structural_equal(pl.parse(SAME_NAME_TEXT), pl.parse(crossed), enable_auto_mapping=True)


COMMENTED_TEXT = '''\
# pypto.program: Commented
import pypto.language as pl

@pl.program
class Commented:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        # the running sum
        # starts at a
        s = a
        for i, (acc,) in pl.range(0, n, 1, init_values=(s,)):
            #
            nxt = acc + i
            # carried to the next iteration
            acc_1 = pl.yield_(nxt)
        if acc_1 < n:
            # then branch
            r = pl.yield_(acc_1)
        else:
            # else branch
            r = pl.yield_(n)
        # done
        return r
'''


def test_full_line_comments_of_text_survive_parse_and_print():
    program = pl.parse(COMMENTED_TEXT)
    assert ir.as_python(program, concise=True) == COMMENTED_TEXT
    body = program.functions[0].body.stmts
    assert list(body[0].leading_comments) == ["the running sum", "starts at a"]
    assert list(body[-1].leading_comments) == ["done"]


def test_comments_do_not_change_structural_equality():
    bare = "\n".join(line for line in COMMENTED_TEXT.splitlines() if not line.strip().startswith("#") or
                     line.startswith("# pypto.program"))
    ir.assert_structural_equal(pl.parse(COMMENTED_TEXT), pl.parse(bare), enable_auto_mapping=True)
    assert ir.as_python(pl.parse(bare)) != ir.as_python(pl.parse(COMMENTED_TEXT))


def test_end_of_line_comments_are_not_kept():
    text = COMMENTED_TEXT.replace("        s = a\n", "        s = a  # not kept\n")
    assert ir.as_python(pl.parse(text), concise=True) == COMMENTED_TEXT


class CommentedKernel:
    @pl.function
    def f(self, a: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        # a comment in Python source
        return a + 1


def test_comments_of_decorated_kernels_are_not_attached():
    program = pl.program(CommentedKernel)
    assert all(not s.leading_comments for s in program.functions[0].body.stmts)


def statement_samples() -> dict:
    x = ir.Var("x", ir.ScalarType(pl.INDEX))
    one = ir.ConstInt(1)
    return {
        ir.AssignStmt: dict(var=x, value=one),
        ir.EvalStmt: dict(expr=one),
        ir.SeqStmts: dict(stmts=[]),
        ir.IfStmt: dict(condition=ir.ConstBool(True), then_body=ir.SeqStmts([])),
        ir.ForStmt: dict(loop_var=x, start=0, stop=4, step=1, iter_args=[], body=ir.SeqStmts([]), return_vars=[]),
        ir.WhileStmt: dict(condition=ir.ConstBool(False), iter_args=[], body=ir.SeqStmts([]), return_vars=[]),
        ir.YieldStmt: dict(values=[]),
        ir.ReturnStmt: dict(values=[]),
        ir.BreakStmt: {},
        ir.ContinueStmt: {},
        ir.ScopeStmt: dict(scope_kind=ir.ScopeKind.Cluster, body=ir.SeqStmts([])),
    }


@pytest.mark.parametrize("cls", list(statement_samples()), ids=lambda c: c.__name__)
def test_every_statement_class_takes_leading_comments(cls):
    stmt = cls(**statement_samples()[cls], leading_comments=["one", "two"])
    assert list(stmt.leading_comments) == ["one", "two"]
    assert list(cls(**statement_samples()[cls]).leading_comments) == []


def test_every_statement_class_is_sampled():
    stmt_classes = {c for c in vars(ir).values() if isinstance(c, type) and issubclass(c, ir.Stmt) and c is not ir.Stmt}
    assert stmt_classes == set(statement_samples())


def test_leading_comments_must_be_a_list_of_str():
    with pytest.raises(TypeError, match="leading_comments takes a list of str"):
        ir.BreakStmt(leading_comments="one")
    with pytest.raises(TypeError, match="leading_comments takes a list of str"):
        ir.BreakStmt(leading_comments=[1])
    with pytest.raises(TypeError, match="has no field 'leading_comments'"):
        ir.Var("x", ir.ScalarType(pl.INDEX), leading_comments=["no"])


def test_scope_task_id_field_is_optional_and_typed_by_the_verifier():
    tid = ir.Var("tid", ir.ScalarType(pl.INDEX))
    body = ir.SeqStmts([ir.ScopeStmt(scope_kind=ir.ScopeKind.InCore, body=ir.SeqStmts([]), task_id=tid)])
    f = ir.Function("f", pl.FunctionType.Opaque, [], [], [], body)
    messages = [d.message for d in ir.verify(ir.Program("p", [f])) if d.is_error]
    assert "task id 'tid' has type Scalar[INDEX]; a scope's task id must be Scalar[TASK_ID]" in messages
    assert ir.ScopeStmt(scope_kind=ir.ScopeKind.InCore, body=ir.SeqStmts([])).task_id is None
