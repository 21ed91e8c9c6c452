"""The torch script runs the program's control flow as the simulator does.

Each kernel runs on the simulator and as its torch script (after parsing and
after the full pipeline) on the same inputs: `pl.spmd` in its for and with
forms (block index and count), `while` loops, `break` and `continue` in
`pl.range` loops, ifs yielding tiles, scalar arithmetic that wraps or rounds
to its dtype (floor division of negatives, UINT32 underflow, FP32 sums),
and an array of scalars in orchestration code.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

from torch_compare import compare_call


def check(kernel, *args):
    compare_call(kernel, args, lambda a: kernel(*a, config=RunConfig()))


@pl.jit
def spmd_for_blocks(x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
    for b in pl.spmd(4):
        t = pl.load(x, [b * 64, 0], [64, 64], target_memory=pl.Mem.Vec)
        out = pl.store(pl.add(t, pl.cast(b, pl.FP32)), [b * 64, 0], out)
    return out


def test_spmd_for_runs_each_block_with_its_index():
    check(spmd_for_blocks, torch.randn(256, 64), torch.zeros(256, 64))


@pl.jit
def spmd_with_block_queries(x: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]):
    with pl.spmd(4):
        with pl.at(level=pl.Level.CORE_GROUP):
            b = pl.tile.get_block_idx()
            n = pl.tile.get_block_num()
            t = pl.load(x, [b * 32, 0], [32, 64])
            pl.store(pl.mul(t, pl.cast(b * n + 1, pl.FP32)), [b * 32, 0], out)
    return out


def test_spmd_with_gives_block_index_and_count():
    check(spmd_with_block_queries, torch.randn(128, 64), torch.zeros(128, 64))


@pl.jit
def loops_that_leave_early(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(10):
            if i == 7:
                break
            if i % 3 == 1:
                continue
            acc = pl.add(acc, pl.cast(i, pl.FP32))
        k = 100
        steps = 0
        while k > 1:
            k = k // 3
            steps = steps + 1
        acc = pl.mul(acc, pl.cast(steps, pl.FP32))
        pl.store(acc, [0, 0], out)
    return out


def test_while_break_and_continue():
    check(loops_that_leave_early, torch.randn(16, 64), torch.zeros(16, 64))


@pl.jit
def tiles_through_ifs(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(4):
            if i < 2:
                acc = pl.exp(pl.mul(acc, 0.1))
            else:
                acc = pl.add(acc, 1.0)
        pl.store(acc, [0, 0], out)
    return out


def test_ifs_yield_tiles_out_of_both_branches():
    check(tiles_through_ifs, torch.randn(16, 64), torch.zeros(16, 64))


@pl.jit
def integer_scalars(x: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.INT32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.load(x, [0, 0], [16, 64])
        for i in pl.range(6):
            q = (i * 7 - 20) // 3
            r = (i * 7 - 20) % 3
            wrapped = pl.cast(i * 1000000000, pl.INT32)
            acc = pl.add(acc, pl.cast(q * 10 + r, pl.INT32))
            acc = pl.tile.ands(acc, wrapped | 0xFFFF)
        pl.store(acc, [0, 0], out)
    return out


def test_integer_scalars_floor_and_wrap_as_the_kernel_does():
    torch.manual_seed(4)
    check(integer_scalars, torch.randint(-100, 100, (16, 64), dtype=torch.int32),
          torch.zeros(16, 64, dtype=torch.int32))


@pl.jit
def narrow_scalars(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        acc = pl.load(x, [0, 0], [16, 64])
        f = pl.cast(0, pl.FP32)
        u = pl.cast(0, pl.UINT32)
        for i in pl.range(5):
            f = f + pl.cast(i, pl.FP32) * 0.1
            u = u - pl.cast(i, pl.UINT32)
            acc = pl.add(acc, f)
        acc = pl.add(acc, pl.cast(u % 1000, pl.FP32))
        pl.store(acc, [0, 0], out)
    return out


def test_fp32_sums_round_and_uint32_underflow_wraps():
    check(narrow_scalars, torch.randn(16, 64), torch.zeros(16, 64))


@pl.jit
def rows_through_an_array(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    rows = pl.array.create(4, dtype=pl.INT32)
    for i in pl.range(4):
        rows[i] = (3 - i) * 16
    for i in pl.range(4):
        row = rows[i]
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [row, 0], [16, 64])
            pl.store(pl.add(t, pl.cast(row, pl.FP32)), [i * 16, 0], out)
    return out


def test_arrays_of_scalars_in_orchestration():
    check(rows_through_an_array, torch.randn(64, 64), torch.zeros(64, 64))
