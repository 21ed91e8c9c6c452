"""Printed IR of representative programs (exact text), and pl.parse / pl.loads on printed and
hand-written DSL text."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir

from . import programs

EXPECTED_CONCISE = {
    programs.TileAdd: '''\
        # pypto.program: TileAdd
        import pypto.language as pl

        @pl.program
        class TileAdd:
            @pl.function(type=pl.FunctionType.InCore)
            def add(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
                tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
                s = pl.tile.add(ta, tb)
                out_1 = pl.tile.store(s, [0, 0], out)
                return out_1
        ''',
    programs.IfAutoPhi: '''\
        # pypto.program: IfAutoPhi
        import pypto.language as pl

        @pl.program
        class IfAutoPhi:
            @pl.function
            def f(self, a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                r = a
                if a < b:
                    r_1 = b
                    r_2 = pl.yield_(r_1)
                else:
                    r_3 = a + 1
                    r_2 = pl.yield_(r_3)
                return r_2
        ''',
    programs.PlainWhile: '''\
        # pypto.program: PlainWhile
        import pypto.language as pl

        @pl.program
        class PlainWhile:
            @pl.function
            def f(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x = 1
                for (x_1,) in pl.while_(init_values=(x,)):
                    pl.cond(x_1 < n)
                    x_2 = x_1 * 2
                    x_3 = pl.yield_(x_2)
                return x_3
        ''',
    programs.InCoreScopeNamed: '''\
        # pypto.program: InCoreScopeNamed
        import pypto.language as pl

        @pl.program
        class InCoreScopeNamed:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="scale", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
                    c = pl.tensor.muls(a, 2.0)
                return c
        ''',
    programs.ScopeTaskIds: '''\
        # pypto.program: ScopeTaskIds
        import pypto.language as pl

        @pl.program
        class ScopeTaskIds:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Out[pl.Tensor[[64, 64], pl.FP32]], c: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as first:
                    b_1 = pl.tensor.assemble(b, pl.tensor.exp(a), [0, 0])
                with pl.at(level=pl.Level.CORE_GROUP, deps=[first]) as second:
                    c_1 = pl.tensor.assemble(c, pl.tensor.add(b_1, b_1), [0, 0])
                with pl.spmd(4, deps=[first, second]) as grid:
                    with pl.at(level=pl.Level.CORE_GROUP):
                        d = pl.tensor.muls(c_1, 2.0)
                with pl.at(level=pl.Level.CORE_GROUP, deps=[grid]):
                    e = pl.tensor.exp(d)
                return e
        ''',
    programs.SliceAndAssemble: '''\
        # pypto.program: SliceAndAssemble
        import pypto.language as pl

        @pl.program
        class SliceAndAssemble:
            @pl.function(type=pl.FunctionType.InCore)
            def f(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
                top = pl.tensor.slice(a, [16, 64], [0, 0])
                t = pl.tensor.exp(top)
                out_1 = pl.tensor.assemble(out, t, [0, 0])
                return out_1
        ''',
    programs.SpmdFor: '''\
        # pypto.program: SpmdFor
        import pypto.language as pl

        @pl.program
        class SpmdFor:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: pl.Tensor[[512, 64], pl.FP32], out: pl.Out[pl.Tensor[[512, 64], pl.FP32]]) -> pl.Tensor[[512, 64], pl.FP32]:
                with pl.spmd(8):
                    with pl.at(level=pl.Level.CORE_GROUP):
                        blk = pl.tile.get_block_idx()
                        t = pl.tile.load(a, [blk * 64, 0], [64, 64], target_memory=pl.Mem.Vec)
                        out_1 = pl.tile.store(t, [blk * 64, 0], out)
                return out_1
        ''',
    programs.Orchestrated: '''\
        # pypto.program: Orchestrated
        import pypto.language as pl

        N = pl.dynamic("N")

        @pl.program
        class Orchestrated:
            @pl.function(type=pl.FunctionType.InCore)
            def add_kernel(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32], out: pl.Out[pl.Tensor[[64, N], pl.FP32]]) -> pl.Tensor[[64, N], pl.FP32]:
                ta = pl.tile.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
                tb = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
                out_1 = pl.tile.store(pl.tile.add(ta, tb), [0, 0], out)
                return out_1

            @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
            def main(self, a: pl.Tensor[[64, N], pl.FP32], b: pl.Tensor[[64, N], pl.FP32], out: pl.InOut[pl.Tensor[[64, N], pl.FP32]]) -> pl.Tensor[[64, N], pl.FP32]:
                pl.func_attr({"entry": True, "stages": [1, 2]})
                r = self.add_kernel(a, b, out)
                return r
        ''',
}


@pytest.mark.parametrize("cls", list(EXPECTED_CONCISE), ids=lambda c: c.__name__)
def test_printed_ir_is_exact(cls):
    assert ir.as_python(pl.program(cls), concise=True) == textwrap.dedent(EXPECTED_CONCISE[cls])


def test_verbose_text_annotates_every_assignment():
    text = ir.as_python(pl.program(programs.LoopCarriedScalar))
    assert "acc: pl.Scalar[pl.INDEX] = 0\n" in text
    assert "acc_3: pl.Scalar[pl.INDEX] = pl.yield_(acc_2)\n" in text


HAND_WRITTEN = '''\
import pypto.language as pl

K = pl.dynamic("K")
WIDTH = 64

@pl.program
class handwritten:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[K, WIDTH], pl.FP32], out: pl.Out[pl.Tensor[[K, WIDTH], pl.FP32]]) -> pl.Tensor[[K, WIDTH], pl.FP32]:
        for i in pl.range(0, K, 16):
            t = pl.load(x, [i, 0], [16, WIDTH], target_memory=pl.Mem.Vec)
            out = pl.store(pl.mul(t, 0.5), [i, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[K, WIDTH], pl.FP32], out: pl.Out[pl.Tensor[[K, WIDTH], pl.FP32]]) -> pl.Tensor[[K, WIDTH], pl.FP32]:
        return self.scale(x, out)
'''


def test_hand_written_text_parses():
    program = pl.parse(HAND_WRITTEN)
    assert program.name == "handwritten"
    assert [f.name for f in program.functions] == ["main", "scale"]
    scale = program.get_function("scale")
    assert scale.func_type == pl.FunctionType.InCore
    assert scale.params[0].type.shape[0].name_hint == "K"
    assert scale.params[0].type.shape[0].same_as(program.get_function("main").params[0].type.shape[0])
    assert not [d for d in ir.verify(program) if d.is_error]
    text = ir.as_python(program)
    ir.assert_structural_equal(pl.parse(text), program, enable_auto_mapping=True)


def test_spans_of_text_point_into_the_text():
    program = pl.parse(HAND_WRITTEN, filename="kernel.pl.py")
    scale = program.get_function("scale")
    assert scale.span.filename == "kernel.pl.py"
    assert scale.span.begin_line == 9
    loop = scale.body.stmts[0]
    assert (loop.span.begin_line, loop.span.begin_col) == (10, 9)


def test_loads_reads_a_file(tmp_path):
    path = tmp_path / "prog.py"
    text = ir.as_python(pl.program(programs.Orchestrated))
    path.write_text(text)
    program = pl.loads(path)
    assert ir.as_python(program) == text
    assert program.functions[0].span.filename == str(path)


def test_another_prefix_round_trips():
    program = pl.program(programs.ExplicitTileCarry)
    text = ir.as_python(program, prefix="ir")
    assert "import pypto.language as ir" in text
    ir.assert_structural_equal(pl.parse(text), program, enable_auto_mapping=True)


def test_errors_in_text_point_at_the_text_line():
    bad = HAND_WRITTEN.replace("pl.mul(t, 0.5)", "pl.mull(t, 0.5)")
    with pytest.raises(pl.ParseTypeError) as info:
        pl.parse(bad, filename="kernel.pl.py")
    assert info.value.lineno == 12
    assert str(info.value).startswith("kernel.pl.py:12:")
    assert "out = pl.store(pl.mull(t, 0.5), [i, 0], out)" in str(info.value)


def test_invalid_python_is_a_syntax_error():
    with pytest.raises(pl.ParseSyntaxError) as info:
        pl.parse("@pl.program\nclass x:\n    def f(self:\n")
    assert info.value.lineno == 3


def test_text_without_a_program():
    with pytest.raises(pl.ParseError, match="no @pl.program class"):
        pl.parse("import pypto.language as pl\n")


MEMREF_TEXT = '''\
# pypto.program: mem
import pypto.language as pl

@pl.program
class mem:
    @pl.function(type=pl.FunctionType.InCore)
    def f(self, t: pl.Tile[[16, 16], pl.FP16, pl.MemRef("buf", 0, 512, pl.Mem.Vec), pl.Mem.Vec], u: pl.Tile[[16, 16], pl.FP16, pl.MemRef("buf", 0, 512, pl.Mem.Vec), pl.Mem.Vec, pl.TileView(valid_shape=[8, 16], blayout=pl.TileLayout.row_major, fractal=512, pad=pl.PadValue.max)], p: pl.Ptr[pl.Mem.Vec], q: pl.Tuple[pl.Scalar[pl.INT32], pl.Scalar[pl.FP32]]):
        x: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.add(t, u)
        return
'''


def test_memrefs_views_pointers_and_tuples_in_text():
    program = pl.parse(MEMREF_TEXT)
    assert ir.as_python(program) == MEMREF_TEXT
    t, u = program.functions[0].params[:2]
    assert t.type.memref.same_as(u.type.memref), "one name is one buffer within a function"
    assert u.type.pad == pl.PadValue.max
    assert list(u.type.valid_shape[i].value for i in range(2)) == [8, 16]


ATTRS_TEXT = '''\
# pypto.program: attrs
import pypto.language as pl

@pl.program
class attrs:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], tid: pl.Scalar[pl.TASK_ID]):
        with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False, deps=[tid], **{"level": 1}):
            b: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.exp(a, attrs={"note": "hot", "weight": 0.5})
        for i in pl.range(0, 4, 1, unroll_hint=2, **{"init_values": 1}):
            pass
        return
'''


def test_scope_loop_and_call_attrs_in_text():
    program = pl.parse(ATTRS_TEXT)
    assert ir.as_python(program) == ATTRS_TEXT
    scope = program.functions[0].body.stmts[0]
    assert scope.attrs["level"] == 1 and scope.attrs["allow_early_resolve"] is False
    assert scope.body.stmts[0].value.attrs == {"note": "hot", "weight": 0.5}


def build_spellings_program() -> ir.Program:
    """A program built directly in IR, using spellings the DSL programs never produce."""
    index, fp32, boolean = (ir.ScalarType(d) for d in (pl.INDEX, pl.FP32, pl.BOOL))
    a = ir.Var("a", index)
    p = ir.Var("p", boolean)
    inf = ir.Var("inf", fp32)
    neg = ir.Var("neg", index)
    x = ir.Var("x", boolean)
    c = ir.Var("c", ir.ScalarType(pl.INT32))
    h = ir.Var("h", ir.ScalarType(pl.FP16))
    body = ir.SeqStmts([
        ir.AssignStmt(inf, ir.ConstFloat(float("-inf"))),
        ir.AssignStmt(neg, ir.UnaryExpr(ir.UnaryOp.Neg, ir.ConstInt(1))),
        ir.AssignStmt(x, ir.BinaryExpr(ir.BinaryOp.Xor, p, ir.BinaryExpr(ir.BinaryOp.Lt, a, neg))),
        ir.AssignStmt(c, ir.UnaryExpr(ir.UnaryOp.Cast, a, type=ir.ScalarType(pl.INT32))),
        ir.AssignStmt(h, ir.ConstFloat(0.5, pl.FP16)),
        ir.ReturnStmt([ir.MakeTuple([a, neg])]),
    ])
    f = ir.Function("f", pl.FunctionType.Opaque, [a, p], [], [ir.TupleType([index, index])], body)
    return ir.Program("spellings", [f])


def test_printer_spellings_parse_back():
    program = build_spellings_program()
    text = ir.as_python(program)
    for spelling in ('float("-inf")', "-pl.const(1, pl.INDEX)", "pl.xor(p, a < neg)", "pl.cast(a, pl.INT32)",
                     "pl.const(0.5, pl.FP16)", "return [a, neg]", "-> pl.Tuple["):
        assert spelling in text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(reparsed, program, enable_auto_mapping=True)
    assert ir.as_python(reparsed) == text
