"""The torch script models the ISA's corner cases as the simulator computes them.

Each kernel runs on the simulator and as its torch script (after parsing and
after the full pipeline) on the same inputs: valid shapes and pad values of
tiles and of tensor views (pl.slice with valid_shape, at any extent),
casts under every round mode, integer division and remainders (by zero and
by -1 too), matmul with FP32 accumulation. Plus the errors of what the
script cannot model, and the script compile() writes.
"""

import subprocess
import sys

import pytest
import torch

import pypto
import pypto.language as pl
from pypto import ir
from pypto.debug import load_torch_script, torch_codegen
from pypto.runtime import RunConfig

from torch_compare import compare_call


def check(kernel, *args):
    compare_call(kernel, args, lambda a: kernel(*a, config=RunConfig()))


@pl.jit
def padded_reductions(x: pl.Tensor[[16, 64], pl.FP32], out_max: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                      out_sum: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 21])
        pl.store(pl.fillpad(t, pad_value=pl.PadValue.max), [0, 0], out_max)
        work = pl.create_tile([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32] = pl.row_sum(t, work)
        pl.store(s, [0, 0], out_sum)
    return out_max


def test_valid_shape_and_pad_values():
    check(padded_reductions, torch.randn(16, 64), torch.zeros(16, 64), torch.zeros(16, 1))


@pl.jit
def sliced_valid_region(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                        sums: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [16, 64], [0, 0], valid_shape=[16, 21])
        e = pl.exp(s)
        out = pl.assemble(out, e, [0, 0])
        sums = pl.assemble(sums, pl.row_sum(e), [0, 0])
    return out


def test_a_tensor_views_valid_shape_bounds_what_its_ops_read_and_write():
    """Only the 21 valid columns are summed and assembled; the rest of `out` keeps its values."""
    check(sliced_valid_region, torch.randn(16, 64), torch.full((16, 64), 7.0), torch.zeros(16, 1))


@pl.jit
def dynamic_valid_region(x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX],
                         out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [16, 64], [0, 0], valid_shape=[16, n])
        out = pl.assemble(out, pl.fillpad(pl.mul(s, 2.0), pad_value=pl.PadValue.zero), [0, 0])
    return out


def test_fillpad_of_a_tensor_view_pads_past_its_dynamic_valid_extent():
    check(dynamic_valid_region, torch.randn(16, 64), 23, torch.full((16, 64), 7.0))


@pl.jit
def matmul_of_a_partial_view(a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[64, 32], pl.FP32],
                             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.slice(a, [32, 64], [0, 0], valid_shape=[20, 40])
        out = pl.assemble(out, pl.matmul(left, b), [0, 0])
    return out


def test_a_tensor_matmul_multiplies_the_valid_m_by_k_only():
    torch.manual_seed(5)
    check(matmul_of_a_partial_view, torch.randn(32, 64), torch.randn(64, 32), torch.full((32, 32), 7.0))


@pl.jit
def window_past_the_valid_region(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [32, 64], [0, 0], valid_shape=[32, 50])
        inner = pl.slice(s, [16, 32], [8, 32])  # valid on 50 - 32 = 18 of its 32 columns
        out = pl.assemble(out, pl.add(inner, 1.0), [0, 0])
    return out


def test_a_window_of_a_view_is_valid_where_the_view_is():
    check(window_past_the_valid_region, torch.randn(32, 64), torch.full((32, 64), 7.0))


@pl.jit
def tile_assembled_into_a_tensor(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [16, 64], valid_shape=[16, 21])
        out = pl.assemble(out, pl.exp(t), [0, 0])
    return out


def test_assembling_a_tile_into_a_tensor_writes_its_valid_region():
    check(tile_assembled_into_a_tensor, torch.randn(16, 64), torch.full((16, 64), 7.0))


def make_cast_kernel(target, mode):
    @pl.jit
    def cast_mode(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
        with pl.at(level=pl.Level.CORE_GROUP):
            narrow = pl.tile.cast(pl.load(x, [0, 0], [16, 64]), target_type=target, mode=mode)
            pl.store(pl.tile.cast(narrow, target_type=pl.FP32), [0, 0], out)
        return out
    return cast_mode


def cast_inputs():
    """Values between representable neighbours, exact ties of FP16 and of integers, and values past FP16's range."""
    torch.manual_seed(1)
    x = torch.randn(16, 64) * 100
    x[0, :8] = torch.tensor([0.5, 1.5, 2.5, -0.5, -2.5, 1.0009765625 + 2 ** -11, 70000.0, -70000.0])
    return x


@pytest.mark.parametrize("mode", range(7))
@pytest.mark.parametrize("target", [pl.FP16, pl.BF16, pl.INT32], ids=["fp16", "bf16", "int32"])
def test_casts_under_every_round_mode(target, mode):
    check(make_cast_kernel(target, mode), cast_inputs(), torch.zeros(16, 64))


@pl.jit
def int_division(a: pl.Tensor[[8, 32], pl.INT32], b: pl.Tensor[[8, 32], pl.INT32],
                 quotient: pl.Out[pl.Tensor[[8, 32], pl.INT32]], rem: pl.Out[pl.Tensor[[8, 32], pl.INT32]],
                 fmod: pl.Out[pl.Tensor[[8, 32], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [8, 32])
        tb = pl.load(b, [0, 0], [8, 32])
        tmp = pl.create_tile([8, 32], dtype=pl.INT32, target_memory=pl.Mem.Vec)
        pl.store(pl.div(ta, tb), [0, 0], quotient)
        pl.store(pl.tile.rem(ta, tb, tmp), [0, 0], rem)
        pl.store(pl.tile.fmod(ta, tb), [0, 0], fmod)
    return quotient


def test_integer_division_and_remainders_never_trap():
    torch.manual_seed(2)
    a = torch.randint(-50, 50, (8, 32), dtype=torch.int32)
    b = torch.randint(-7, 8, (8, 32), dtype=torch.int32)
    a[0, :3] = torch.iinfo(torch.int32).min
    b[0, :3] = torch.tensor([-1, 0, 3], dtype=torch.int32)
    zeros = [torch.zeros(8, 32, dtype=torch.int32) for _ in range(3)]
    check(int_division, a, b, *zeros)


@pl.jit
def matmul_accumulate(a: pl.Tensor[[32, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16],
                      out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.matmul(pl.load(a, [0, 0], [32, 64]), pl.load(b, [0, 0], [64, 32]))
        acc = pl.matmul_acc(acc, pl.load(a, [0, 64], [32, 64]), pl.load(b, [64, 0], [64, 32]))
        pl.store(acc, [0, 0], out)
    return out


def test_matmul_accumulates_in_fp32():
    torch.manual_seed(3)
    check(matmul_accumulate, torch.randn(32, 128).half(), torch.randn(128, 32).half(), torch.zeros(32, 32))


def test_compile_writes_the_script_of_the_lowered_program(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    compiled = padded_reductions.compile(torch.randn(16, 64), torch.zeros(16, 64), torch.zeros(16, 1),
                                         config=RunConfig())
    written = compiled.output_dir / "debug" / f"{compiled.program.name}_torch.py"
    assert written.read_text() == torch_codegen(compiled)
    assert "def main(" in written.read_text()


def test_each_op_line_names_the_op_and_the_source_line():
    script = torch_codegen(padded_reductions.lower(torch.randn(16, 64), torch.zeros(16, 64), torch.zeros(16, 1)))
    line = next(l for l in script.splitlines() if "= tile_fillpad(" in l)
    assert "# tile.fillpad  test_torch_codegen_semantics.py:" in line
    assert "pad_value='max'" in line


def test_the_script_runs_standalone_on_random_and_saved_inputs(tmp_path):
    script_path = tmp_path / "padded_torch.py"
    script_path.write_text(torch_codegen(padded_reductions.lower(torch.randn(16, 64), torch.zeros(16, 64),
                                                                 torch.zeros(16, 1))))
    first = subprocess.run([sys.executable, str(script_path), "--save", str(tmp_path / "after.npz")],
                           capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    again = subprocess.run([sys.executable, str(script_path), "--inputs", str(tmp_path / "after.npz")],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert "out_sum: [16, 1] torch.float32" in again.stdout


def unmodelled_op_program():
    """A program calling an op the prelude does not define (a plugin's op, say)."""
    x = ir.Var("x", ir.TensorType([16, 16], ir.DataType.FP32))
    span = ir.Span("kernel.py", 7, 5)
    call = ir.Call(ir.Op("custom.frobnicate"), [x], type=x.type, span=span)
    body = ir.SeqStmts([ir.EvalStmt(call, span=span), ir.ReturnStmt([x])])
    function = ir.Function("entry", ir.FunctionType.Orchestration, [x], [ir.ParamDirection.In], [x.type], body)
    return ir.Program("unmodelled", [function])


def test_an_unmodelled_op_is_a_codegen_error_naming_op_and_line():
    with pytest.raises(pypto.CodegenError, match=r"op 'custom.frobnicate'.*does not model.*line 7"):
        torch_codegen(unmodelled_op_program())


def test_load_torch_script_gives_the_entry_and_its_params():
    module = load_torch_script(torch_codegen(padded_reductions.lower(torch.randn(16, 64), torch.zeros(16, 64),
                                                                     torch.zeros(16, 1))))
    assert [name for name, *_ in module.PARAMS] == ["x", "out_max", "out_sum"]
