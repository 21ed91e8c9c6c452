"""`pl.submit` / `pl.spmd_submit` / `pl.no_dep` / `pl.manual_scope()` in `@pl.program` source, and task ids
and deps surviving the lowering chain (outlining turns `as tid` scopes into submits) up to
AutoDeriveTaskDependencies."""

import pytest
import yaml

import pypto
import pypto.language as pl
from pypto import ir, passes

from . import programs

LOWERING = ["InlineFunctions", "UnrollLoops", "Simplify", "FlattenCallExpr", "OutlineHierarchyScopes",
            "OutlineIncoreScopes", "OutlineClusterScopes", "ConvertTensorToTileOps", "FlattenTileNdTo2D",
            "InferTileMemorySpace", "InitMemRef", "MemoryReuse", "AllocateMemoryAddr", "DeriveCallDirections",
            {"name": "AutoDeriveTaskDependencies", "options": {"analyze_auto_scopes_for_deps": True}}, "Simplify"]


def lower(program: ir.Program, tmp_path) -> ir.Program:
    pipeline = tmp_path / "lowering.yaml"
    pipeline.write_text(yaml.safe_dump({"name": "lowering", "input_properties": ["SSAForm"], "verify": True,
                                        "passes": LOWERING}))
    return passes.PassManager(str(pipeline)).run(program)


def submits_of(function: ir.Function) -> list:
    return [s.value for s in function.body.stmts if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Submit)]


def round_trips(program: ir.Program) -> None:
    text = ir.as_python(program)
    again = pl.parse(text)
    ir.assert_structural_equal(program, again, enable_auto_mapping=True)
    assert ir.as_python(again) == text


@pytest.mark.parametrize("cls", [programs.ScopeTaskIds, programs.ScopeTaskIdArrays, programs.ScopeTaskIdInLoop],
                         ids=lambda c: c.__name__)
def test_task_id_programs_lower_with_verification(cls, tmp_path):
    lowered = lower(pl.program(cls), tmp_path)
    main = lowered.get_function("main")
    assert main.func_type == ir.FunctionType.Orchestration
    text = ir.as_python(main)
    assert "pl.submit(self." in text or "pl.spmd_submit(self." in text
    assert "deps=[" in text


def test_scope_task_ids_become_submit_results_named_as_in_the_source(tmp_path):
    main = lower(pl.program(programs.ScopeTaskIds), tmp_path).get_function("main")
    submits = submits_of(main)
    assert [s.call.op.name for s in submits] == ["first", "main_incore_1", "main_spmd_0", "main_incore_3"]
    assert [d.name_hint for d in submits[1].deps] == ["first"]
    assert [d.name_hint for d in submits[2].deps] == ["first", "second"]
    assert [d.name_hint for d in submits[3].deps] == ["grid"]
    assert submits[2].call.attrs["core_num"].value == 4
    assert isinstance(submits[0].type.fields[-1], ir.ScalarType) and submits[0].type.fields[-1].dtype == pl.TASK_ID


def test_outlined_task_ids_round_trip(tmp_path):
    pipeline = tmp_path / "outline.yaml"
    pipeline.write_text(yaml.safe_dump({"name": "outline", "input_properties": ["SSAForm"], "verify": True,
                                        "passes": LOWERING[:7]}))
    for cls in (programs.ScopeTaskIds, programs.ScopeTaskIdArrays, programs.ScopeTaskIdInLoop):
        round_trips(passes.PassManager(str(pipeline)).run(pl.program(cls)))


@pl.program
class Staged:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[64, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out = pl.assemble(out, pl.mul(x, 2.0), [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], tmp: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             y: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        t1, first = pl.submit(self.scale, x, tmp, allow_early_resolve=True)
        y1, second = pl.spmd_submit(self.scale, pl.no_dep(t1), y, core_num=4, sync_start=True, deps=[first])
        with pl.manual_scope():
            y2 = self.scale(x, pl.no_dep(y1))
        return y2


def test_submits_parse_print_and_round_trip():
    main = Staged.get_function("main")
    first, second = submits_of(main)
    assert first.call.op.name == "scale" and first.attrs["allow_early_resolve"] is True and not first.deps
    assert second.call.attrs["core_num"].value == 4 and second.call.attrs["sync_start"] is True
    assert second.call.attrs["no_dep_args"][0].name_hint == "t1"
    assert [d.name_hint for d in second.deps] == ["first"]
    text = ir.as_python(Staged)
    assert "pl.submit(self.scale, x, tmp, allow_early_resolve=True)" in text
    assert ("pl.spmd_submit(self.scale, t1, y, core_num=4, sync_start=True, deps=[first], "
            'attrs={"no_dep_args": [t1]})') in text
    assert "with pl.manual_scope():" in text
    round_trips(Staged)


def test_submit_serializes():
    assert ir.structural_equal(ir.deserialize(ir.serialize(Staged)), Staged, enable_auto_mapping=True)


def test_no_dep_and_manual_scope_reach_the_call_directions(tmp_path):
    pipeline = tmp_path / "directions.yaml"
    pipeline.write_text(yaml.safe_dump({"name": "directions", "input_properties": ["SSAForm", "SplitIncoreOrch"],
                                        "verify": True, "passes": ["DeriveCallDirections"]}))
    text = ir.as_python(passes.PassManager(str(pipeline)).run(Staged))
    assert '"no_dep_args": [t1], "arg_directions": ["NoDep", "OutputExisting"]' in text
    assert '"no_dep_args": [y1], "arg_directions": ["Input", "NoDep"]' in text


SUBMIT_ERRORS = {
    "not_a_method": ("r, t = pl.submit(pl.exp, a)", "pl.submit launches a function of the program"),
    "unknown_keyword": ("r, t = pl.submit(self.k, a, predicate=True)", "pl.submit has no keyword 'predicate'"),
    "no_core_num": ("r, t = pl.spmd_submit(self.k, a)", "pl.spmd_submit needs the number of blocks"),
    "deps_on_a_call": ("r = self.k(a, deps=[])", "calls of 'k' take positional arguments only"),
    "no_dep_alone": ("r = pl.no_dep(a)", "pl.no_dep(t) marks an argument of a kernel call"),
    "bad_dep": ("r, t = pl.submit(self.k, a, deps=[a])", "a deps= entry must be a task id"),
}


@pytest.mark.parametrize("case", sorted(SUBMIT_ERRORS))
def test_submit_misuse_is_an_error_at_the_line(case):
    line, message = SUBMIT_ERRORS[case]
    text = f"""import pypto.language as pl

@pl.program
class bad:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        {line}
        return a
"""
    with pytest.raises(pypto.Error) as info:
        pl.parse(text)
    assert message in str(info.value)
    assert ":11:" in str(info.value) or "line 11" in str(info.value)


def test_task_dummy_joins_task_ids():
    text = """import pypto.language as pl

@pl.program
class joins:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
        ids = pl.array.create(2, dtype=pl.TASK_ID)
        r, t = pl.submit(self.k, a)
        done = pl.system.task_dummy(deps=[t, ids])
        r2, t2 = pl.submit(self.k, r, deps=[done])
        return r2
"""
    program = pl.parse(text)
    assert "done: pl.Scalar[pl.TASK_ID] = pl.system.task_dummy(deps=[t, ids])" in ir.as_python(program)
    round_trips(program)
    with pytest.raises(pypto.Error, match="deps entry 0 has type Tensor"):
        pl.parse(text.replace("deps=[t, ids]", "deps=[a]"))
