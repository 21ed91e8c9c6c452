"""Call spellings the manual uses: options by position, optional operands by name,
annotations that leave the memory space open, and `attrs=` on calls in printed IR."""

import pytest

import pypto.language as pl
from pypto import ir
from pypto.language.errors import ParseTypeError


def _function(program: ir.Program, name: str) -> ir.Function:
    return program.get_function(name)


def _assigns(fn: ir.Function) -> dict[str, ir.AssignStmt]:
    body = fn.body.stmts if isinstance(fn.body, ir.SeqStmts) else [fn.body]
    return {s.var.name_hint: s for s in body if isinstance(s, ir.AssignStmt)}


def test_options_may_follow_the_operands_by_position():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self) -> pl.Tensor[[64, 32], pl.FP16]:
            t = pl.create_tensor([64, 32], pl.FP16)
            return t

    call = _assigns(_function(P, "main"))["t"].value
    assert call.kwargs["dtype"] == ir.DataType.FP16
    assert call.type.dtype == ir.DataType.FP16


def test_an_option_given_twice_is_an_error():
    with pytest.raises(ParseTypeError, match="both by position and by keyword"):
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self) -> pl.Tensor[[64, 32], pl.FP16]:
                t = pl.create_tensor([64, 32], pl.FP16, dtype=pl.FP32)
                return t


def test_optional_operands_may_be_named():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
            t = pl.load(x, [0, 0], [64, 128], valid_shape=[64, 100])
            pl.store(t, [0, 0], out)
            return

    load = _assigns(_function(P, "k"))["t"].value
    assert len(load.args) == 4
    assert [d.value for d in load.type.valid_shape] == [64, 100]


def test_a_tile_annotation_without_memory_space_takes_the_values():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[32, 128], pl.FP32], out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]):
            t = pl.load(x, [0, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            s: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(t, work)
            pl.store(s, [0, 0], out)
            return

    assert ir.verify(P) == []
    s = _assigns(_function(P, "k"))["s"]
    assert s.var.type.memory_space == ir.MemorySpace.Vec


def test_a_wrong_tile_annotation_is_still_reported():
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: pl.Tensor[[32, 128], pl.FP32]):
            t = pl.load(x, [0, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            s: pl.Tile[[32, 2], pl.FP32] = pl.row_sum(t, work)
            return

    assert any(d.code == "ASSIGN_TYPE_MISMATCH" for d in ir.verify(P))


def test_call_attrs_written_by_passes_read_back():
    text = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
        pl.tile.store(t, [0, 0], out)
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        self.k(a, out, attrs={"arg_directions": ["Input", "OutputExisting"]})
        return
'''
    program = pl.parse(text)
    body = _function(program, "main").body
    call = body.stmts[0].expr
    assert list(call.attrs["arg_directions"]) == ["Input", "OutputExisting"]
    assert "attrs={\"arg_directions\": [\"Input\", \"OutputExisting\"]}" in ir.as_python(program)


def test_other_keywords_on_function_calls_are_rejected():
    text = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        return

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        self.k(a, out=out)
        return
'''
    with pytest.raises(ParseTypeError, match="positional arguments only"):
        pl.parse(text)


def test_a_call_result_is_typed_in_the_callers_dims():
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[n, 64], pl.FP32], out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        r: pl.Tensor[[n, 64], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return r

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, rows: pl.Scalar[pl.INDEX], x: pl.Tensor[[rows, 64], pl.FP32], y: pl.Out[pl.Tensor[[rows, 64], pl.FP32]]) -> pl.Tensor[[rows, 64], pl.FP32]:
        r: pl.Tensor[[rows, 64], pl.FP32] = self.k(rows, x, y)
        return r
"""
    program = pl.parse(text)
    assert ir.verify(program) == []
    main = _function(program, "main")
    r = _assigns(main)["r"]
    assert ir.structural_equal(r.value.type, main.params[1].type)
