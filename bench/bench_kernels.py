"""Kernels on the simulator vs. torch eager on the same inputs, in one process.

    .venv/bin/python bench/bench_kernels.py        (make bench runs it)

Each row times our kernel (compiled once, then called) and the same math as
torch eager ops, reporting medians and the ratio torch / ours (above 1:
ours is faster). The last rows are compile and dispatch costs. Every result
is checked against torch first. Nothing is asserted about speed.
"""

from __future__ import annotations

import math
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

CONFIG = RunConfig(platform="a2a3sim")
ROUNDS = int(os.environ.get("PYPTO_BENCH_ROUNDS", "7"))


def median_seconds(fn: Callable[[], object], rounds: int = ROUNDS, warmup: int = 1) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


# ----------------------------------------------------------------- kernels

N = 4096
ROW_BLOCK = 4  # rows of 4096 FP32 per task: two 64 KiB tiles in Vec
CHAIN_BLOCK = 2


@pl.jit
def add_4096(a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    for r in pl.parallel(0, N, ROW_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [r, 0], [ROW_BLOCK, N])
            tb = pl.load(b, [r, 0], [ROW_BLOCK, N])
            pl.store(pl.add(ta, tb), [r, 0], out)
    return out


@pl.jit
def chain_4096(a: pl.Tensor[[N, N], pl.FP32], b: pl.Tensor[[N, N], pl.FP32], out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    for r in pl.parallel(0, N, CHAIN_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            ta = pl.load(a, [r, 0], [CHAIN_BLOCK, N])
            tb = pl.load(b, [r, 0], [CHAIN_BLOCK, N])
            pl.store(pl.relu(pl.add(pl.mul(pl.add(ta, tb), tb), 1.0)), [r, 0], out)
    return out


SM_ROWS, SM_COLS, SM_BLOCK = 4096, 1024, 8


@pl.jit
def softmax_rows(x: pl.Tensor[[SM_ROWS, SM_COLS], pl.FP32], out: pl.Out[pl.Tensor[[SM_ROWS, SM_COLS], pl.FP32]]):
    # One task of SM_ROWS / SM_BLOCK blocks (pl.spmd): the blocks are spread over the clusters by the
    # runtime, with no submit per block. Each block normalizes its rows by one reciprocal per row and a
    # multiply, as torch's softmax does, instead of a division per element.
    with pl.spmd(SM_ROWS // SM_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.tile.get_block_idx() * SM_BLOCK
            t = pl.load(x, [r, 0], [SM_BLOCK, SM_COLS])
            work = pl.create_tile([SM_BLOCK, SM_COLS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[SM_BLOCK, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.row_expand_expdif(t, m)
            s: pl.Tile[[SM_BLOCK, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_mul(e, pl.recip(s)), [r, 0], out)
    return out


@pl.jit
def softmax_rows_loop(x: pl.Tensor[[SM_ROWS, SM_COLS], pl.FP32],
                      out: pl.Out[pl.Tensor[[SM_ROWS, SM_COLS], pl.FP32]]):
    # The same blocks as tasks of a pl.parallel loop: one submit each.
    for r in pl.parallel(0, SM_ROWS, SM_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [SM_BLOCK, SM_COLS])
            work = pl.create_tile([SM_BLOCK, SM_COLS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[SM_BLOCK, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.row_expand_expdif(t, m)
            s: pl.Tile[[SM_BLOCK, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_mul(e, pl.recip(s)), [r, 0], out)
    return out


RMS_BLOCK = 2


@pl.jit
def rms_norm_4096(x: pl.Tensor[[N, N], pl.FP32], gamma: pl.Tensor[[1, N], pl.FP32],
                  out: pl.Out[pl.Tensor[[N, N], pl.FP32]]):
    for r in pl.parallel(0, N, RMS_BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [RMS_BLOCK, N])
            work = pl.create_tile([RMS_BLOCK, N], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            ss: pl.Tile[[RMS_BLOCK, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), work)
            rms = pl.sqrt(pl.add(pl.mul(ss, 1.0 / N), 1e-6))
            pl.store(pl.col_expand_mul(pl.row_expand_div(t, rms), pl.load(gamma, [0, 0], [1, N])), [r, 0], out)
    return out


MM, MM_BLOCK = 1024, 128
MM32_K = 256  # FP32 operands: a 128 x K panel of A and a K x 128 panel of B take 256 KiB of Mat's 512


@pl.jit
def matmul_f16(a: pl.Tensor[[MM, MM], pl.FP16], b: pl.Tensor[[MM, MM], pl.FP16],
               out: pl.Out[pl.Tensor[[MM, MM], pl.FP32]]):
    for i in pl.parallel(0, MM, MM_BLOCK):
        for j in pl.parallel(0, MM, MM_BLOCK):
            with pl.at(level=pl.Level.CORE_GROUP):
                out[i:i + MM_BLOCK, j:j + MM_BLOCK] = pl.matmul(a[i:i + MM_BLOCK, :], b[:, j:j + MM_BLOCK],
                                                                out_dtype=pl.FP32)
    return out


@pl.jit
def matmul_f32(a: pl.Tensor[[MM, MM], pl.FP32], b: pl.Tensor[[MM, MM], pl.FP32],
               out: pl.Out[pl.Tensor[[MM, MM], pl.FP32]]):
    # FP32 panels of all of K do not fit Mat at 128 x 128 blocks; K goes in steps accumulated in Acc
    # (TMATMUL_ACC), which keeps the blocks large.
    for i in pl.parallel(0, MM, MM_BLOCK):
        for j in pl.parallel(0, MM, MM_BLOCK):
            with pl.at(level=pl.Level.CORE_GROUP):
                acc = pl.matmul(pl.load(a, [i, 0], [MM_BLOCK, MM32_K], target_memory=pl.Mem.Mat),
                                pl.load(b, [0, j], [MM32_K, MM_BLOCK], target_memory=pl.Mem.Mat))
                for k in pl.range(MM32_K, MM, MM32_K):
                    acc = pl.matmul_acc(acc, pl.load(a, [i, k], [MM_BLOCK, MM32_K], target_memory=pl.Mem.Mat),
                                        pl.load(b, [k, j], [MM32_K, MM_BLOCK], target_memory=pl.Mem.Mat))
                pl.store(acc, [i, j], out)
    return out


FA_HEADS, FA_SEQ, FA_DIM = 8, 1024, 128  # attention of shape 1 x 8 x 1024 x 128
FA_ROWS = FA_HEADS * FA_SEQ  # heads stacked along the rows: head h is rows h*FA_SEQ .. (h+1)*FA_SEQ-1
FA_QB, FA_KB = 128, 128  # query rows x keys per step: a 128x128 FP32 score tile plus its work tile fit Vec
FA_SCALE = 1.0 / math.sqrt(FA_DIM)


@pl.jit
def flash_attention_8x1024(q: pl.Tensor[[FA_ROWS, FA_DIM], pl.FP16], k: pl.Tensor[[FA_ROWS, FA_DIM], pl.FP16],
                           v: pl.Tensor[[FA_ROWS, FA_DIM], pl.FP16],
                           out: pl.Out[pl.Tensor[[FA_ROWS, FA_DIM], pl.FP32]]):
    # Online-softmax state (running max m, sum l, unnormalized output o) for every query row, so that the
    # (head, query block) iterations touch disjoint rows and run on both clusters.
    m = pl.create_tensor([FA_ROWS, 1], pl.FP32)
    l = pl.create_tensor([FA_ROWS, 1], pl.FP32)
    o = pl.create_tensor([FA_ROWS, FA_DIM], pl.FP32)
    alpha = pl.create_tensor([FA_ROWS, 1], pl.FP32)
    scores = pl.create_tensor([FA_ROWS, FA_KB], pl.FP32)
    p = pl.create_tensor([FA_ROWS, FA_KB], pl.FP16)
    pv = pl.create_tensor([FA_ROWS, FA_DIM], pl.FP32)
    for head in pl.parallel(0, FA_HEADS):
        for qb in pl.parallel(0, FA_SEQ, FA_QB):
            row = head * FA_SEQ + qb
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_init"):
                pl.store(pl.tile.full([FA_QB, 1], -1e30, dtype=pl.FP32), [row, 0], m)
                pl.store(pl.tile.full([FA_QB, 1], 0.0, dtype=pl.FP32), [row, 0], l)
                pl.store(pl.tile.full([FA_QB, FA_DIM], 0.0, dtype=pl.FP32), [row, 0], o)
            for j in pl.range(0, FA_SEQ, FA_KB):
                key = head * FA_SEQ + j
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_scores"):
                    scores[row:row + FA_QB, :] = pl.matmul(q[row:row + FA_QB, :], k[key:key + FA_KB, :], b_trans=True,
                                                           out_dtype=pl.FP32)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_online_softmax"):
                    s = pl.mul(pl.load(scores, [row, 0], [FA_QB, FA_KB]), FA_SCALE)
                    work = pl.create_tile([FA_QB, FA_KB], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                    m_old = pl.load(m, [row, 0], [FA_QB, 1])
                    m_new = pl.maximum(m_old, pl.row_max(s, work))
                    e = pl.exp(pl.row_expand_sub(s, m_new))
                    a = pl.exp(pl.sub(m_old, m_new))
                    pl.store(pl.add(pl.mul(pl.load(l, [row, 0], [FA_QB, 1]), a), pl.row_sum(e, work)), [row, 0], l)
                    pl.store(m_new, [row, 0], m)
                    pl.store(a, [row, 0], alpha)
                    pl.store(pl.cast(e, pl.FP16), [row, 0], p)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_pv"):
                    pv[row:row + FA_QB, :] = pl.matmul(p[row:row + FA_QB, :], v[key:key + FA_KB, :], out_dtype=pl.FP32)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_rescale"):
                    rescaled = pl.row_expand_mul(pl.load(o, [row, 0], [FA_QB, FA_DIM]),
                                                 pl.load(alpha, [row, 0], [FA_QB, 1]))
                    pl.store(pl.add(rescaled, pl.load(pv, [row, 0], [FA_QB, FA_DIM])), [row, 0], o)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fa_normalize"):
                pl.store(pl.row_expand_div(pl.load(o, [row, 0], [FA_QB, FA_DIM]), pl.load(l, [row, 0], [FA_QB, 1])),
                         [row, 0], out)
    return out


@pl.jit
def hello(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
          out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.add(pl.load(a, [0, 0], [128, 128]), pl.load(b, [0, 0], [128, 128])), [0, 0], out)
    return out


# --------------------------------------------------------------- the rows


def kernel_rows() -> list[tuple[str, float, float]]:
    torch.manual_seed(0)
    rows = []

    def row(name: str, ours: Callable[[], object], theirs: Callable[[], object], check: Callable[[], None]) -> None:
        ours()
        check()
        rows.append((name, median_seconds(ours), median_seconds(theirs)))

    a, b, out = torch.randn(N, N), torch.randn(N, N), torch.empty(N, N)
    row("elementwise add 4096x4096 FP32", lambda: add_4096(a, b, out, config=CONFIG), lambda: torch.add(a, b, out=out),
        lambda: torch.testing.assert_close(out, a + b))
    row("fused chain relu((a+b)*b+1) 4096x4096", lambda: chain_4096(a, b, out, config=CONFIG),
        lambda: torch.relu((a + b) * b + 1.0),
        lambda: torch.testing.assert_close(out, torch.relu((a + b) * b + 1.0)))
    x, y = torch.randn(SM_ROWS, SM_COLS), torch.empty(SM_ROWS, SM_COLS)
    row("row softmax 4096x1024 FP32", lambda: softmax_rows(x, y, config=CONFIG), lambda: torch.softmax(x, dim=-1),
        lambda: torch.testing.assert_close(y, torch.softmax(x, dim=-1)))
    # The same kernel against the softmax formula as eager torch ops (one pass and one temporary per op, as
    # the RMSNorm row's reference), next to torch's fused softmax above.
    softmax_row = rows[-1]

    def softmax_eager():
        e = torch.exp(x - x.amax(dim=-1, keepdim=True))
        return e / e.sum(dim=-1, keepdim=True)

    rows.append(("row softmax, same (vs eager exp(x - max) / sum)", softmax_row[1], median_seconds(softmax_eager)))
    row("row softmax, same, as a pl.parallel loop of tasks", lambda: softmax_rows_loop(x, y, config=CONFIG),
        lambda: torch.softmax(x, dim=-1), lambda: torch.testing.assert_close(y, torch.softmax(x, dim=-1)))
    gamma = torch.randn(1, N)

    def rms_torch():
        return a / torch.sqrt((a * a).mean(dim=-1, keepdim=True) + 1e-6) * gamma

    row("RMSNorm 4096x4096 FP32", lambda: rms_norm_4096(a, gamma, out, config=CONFIG), rms_torch,
        lambda: torch.testing.assert_close(out, rms_torch(), rtol=1e-4, atol=1e-4))
    ah, bh, c = torch.randn(MM, MM).half(), torch.randn(MM, MM).half(), torch.empty(MM, MM)
    af, bf = ah.float(), bh.float()
    row("matmul 1024^3 FP16->FP32 (vs torch FP32 matmul)", lambda: matmul_f16(ah, bh, c, config=CONFIG),
        lambda: torch.matmul(af, bf), lambda: torch.testing.assert_close(c, af @ bf, rtol=1e-3, atol=1e-2))
    row("matmul 1024^3 FP32", lambda: matmul_f32(af, bf, c, config=CONFIG), lambda: torch.matmul(af, bf),
        lambda: torch.testing.assert_close(c, af @ bf, rtol=1e-3, atol=1e-2))
    shape = (1, FA_HEADS, FA_SEQ, FA_DIM)
    qh, kh, vh = (torch.randn(shape).half() for _ in range(3))
    qf, kf, vf = qh.float(), kh.float(), vh.float()
    attn = torch.empty(shape)
    # The kernel sees each tensor as FA_ROWS x FA_DIM (heads stacked); these are views, not copies.
    q2, k2, v2, attn2 = (t.view(FA_ROWS, FA_DIM) for t in (qh, kh, vh, attn))

    def sdpa():
        return torch.nn.functional.scaled_dot_product_attention(qf, kf, vf)

    def manual_attention():
        return torch.softmax(qf @ kf.transpose(-2, -1) * FA_SCALE, dim=-1) @ vf

    def check_attention():
        # P is rounded to FP16 before P @ V on the cube; the difference stays near 1e-4.
        torch.testing.assert_close(attn, sdpa(), rtol=1e-3, atol=1e-3)
        torch.testing.assert_close(attn, manual_attention(), rtol=1e-3, atol=1e-3)

    row("flash attention 1x8x1024x128 (vs torch SDPA FP32)",
        lambda: flash_attention_8x1024(q2, k2, v2, attn2, config=CONFIG), sdpa, check_attention)
    # The same kernel timing against the unfused torch formula.
    rows.append(("flash attention, same (vs softmax(QK^T)V FP32)", rows[-1][1], median_seconds(manual_attention)))
    return rows


def compile_rows() -> list[tuple[str, float]]:
    a, b, out = torch.randn(128, 128), torch.randn(128, 128), torch.empty(128, 128)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["PYPTO_CACHE_DIR"] = cache
        start = time.perf_counter()
        hello.compile(a, b, out, config=CONFIG)
        cold = time.perf_counter() - start
        warm_samples = []
        for _ in range(ROUNDS):
            hello.clear_cache()
            start = time.perf_counter()
            hello.compile(a, b, out, config=CONFIG)
            warm_samples.append(time.perf_counter() - start)
        os.environ.pop("PYPTO_CACHE_DIR")
    hello(a, b, out, config=CONFIG)
    dispatch = median_seconds(lambda: hello(a, b, out, config=CONFIG), rounds=200, warmup=10)
    compiled = hello.compile(a, b, out, config=CONFIG)
    direct = median_seconds(lambda: compiled(a, b, out), rounds=200, warmup=10)
    return [("cold compile, hello world (empty object cache)", cold),
            ("warm compile, hello world (kernel cache cleared, object cache hit)", statistics.median(warm_samples)),
            ("per-call overhead, cached kernel via kernel(...)", dispatch),
            ("per-call overhead, CompiledProgram(...)", direct)]


def main() -> None:
    with tempfile.TemporaryDirectory() as build:
        os.environ["PYPTO_PROG_BUILD_DIR"] = str(Path(build))
        rows = kernel_rows()
        costs = compile_rows()
    print(f"{'workload':52} {'pypto ms':>10} {'torch ms':>10} {'torch/pypto':>12}")
    for name, ours, theirs in rows:
        print(f"{name:52} {ours * 1e3:10.2f} {theirs * 1e3:10.2f} {theirs / ours:12.2f}")
    print()
    for name, seconds in costs:
        value = f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} us"
        print(f"{name:66} {value:>12}")
    print(f"\n(medians of {ROUNDS} rounds; torch {torch.__version__} with {torch.get_num_threads()} threads; "
          f"simulator clusters = hardware threads)")


if __name__ == "__main__":
    main()
