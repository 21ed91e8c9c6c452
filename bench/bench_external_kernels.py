"""The shipped hand-written kernels (plugins/kernels) vs. the same math written in the DSL, on the simulator.

    .venv/bin/python bench/bench_external_kernels.py        (make bench runs it)

An external kernel runs as one task on one core and loops over its blocks inside. Each row times it
against two DSL versions of the same blocks: one task whose InCore body loops over the blocks (the
same work on one core: what the generated code costs), and a pl.parallel loop of one task per block
(spread over the simulated clusters: what a DSL user would write). Ratios are DSL / external (above
1: the hand-written kernel is faster). Every result is checked against torch first; nothing is
asserted about speed.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable

import torch

import pypto.kernels
import pypto.language as pl
from bench_kernels import CONFIG, SM_BLOCK as SB, SM_COLS as SC, SM_ROWS as SR, median_seconds
from bench_kernels import softmax_rows_loop as softmax_dsl_tasks

# ----------------------------------------------------------------- GEMM 512^3, FP16 in, FP32 out
MM, MB = 512, 128


@pl.jit
def gemm_external(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = pypto.kernels.gemm_fp16(a, b, c)
    return c


@pl.jit
def gemm_dsl_one_task(a: pl.Tensor[[MM, MM], pl.FP16], b: pl.Tensor[[MM, MM], pl.FP16],
                      c: pl.Out[pl.Tensor[[MM, MM], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, MM, MB):
            for j in pl.range(0, MM, MB):
                acc = pl.matmul(pl.load(a, [i, 0], [MB, MB], target_memory=pl.Mem.Mat),
                                pl.load(b, [0, j], [MB, MB], target_memory=pl.Mem.Mat))
                for k in pl.range(MB, MM, MB):
                    acc = pl.matmul_acc(acc, pl.load(a, [i, k], [MB, MB], target_memory=pl.Mem.Mat),
                                        pl.load(b, [k, j], [MB, MB], target_memory=pl.Mem.Mat))
                pl.store(acc, [i, j], c)
    return c


@pl.jit
def gemm_dsl_tasks(a: pl.Tensor[[MM, MM], pl.FP16], b: pl.Tensor[[MM, MM], pl.FP16],
                   c: pl.Out[pl.Tensor[[MM, MM], pl.FP32]]):
    for i in pl.parallel(0, MM, MB):
        for j in pl.parallel(0, MM, MB):
            with pl.at(level=pl.Level.CORE_GROUP):
                c[i:i + MB, j:j + MB] = pl.matmul(a[i:i + MB, :], b[:, j:j + MB], out_dtype=pl.FP32)
    return c


# ----------------------------------------------------------------- row softmax 4096 x 1024 FP32
# The many-tasks version is bench_kernels' pl.parallel softmax, of SB-row blocks.


@pl.jit
def softmax_external(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.softmax_rows_fp32(x, out)
    return out


@pl.jit
def softmax_dsl_one_task(x: pl.Tensor[[SR, SC], pl.FP32], out: pl.Out[pl.Tensor[[SR, SC], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for r in pl.range(0, SR, SB):
            t = pl.load(x, [r, 0], [SB, SC])
            work = pl.create_tile([SB, SC], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[SB, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.exp(pl.row_expand_sub(t, m))
            s: pl.Tile[[SB, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_div(e, s), [r, 0], out)
    return out


# ----------------------------------------------------------------- RMSNorm 4096 x 1024 FP32
RR, RC, RB, EPS = 4096, 1024, 4, 1e-6


@pl.jit
def rmsnorm_external(x: pl.Tensor, gamma: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = pypto.kernels.rmsnorm_fp32(x, gamma, out, EPS)
    return out


@pl.jit
def rmsnorm_dsl_one_task(x: pl.Tensor[[RR, RC], pl.FP32], gamma: pl.Tensor[[1, RC], pl.FP32],
                         out: pl.Out[pl.Tensor[[RR, RC], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        g = pl.load(gamma, [0, 0], [1, RC])
        for r in pl.range(0, RR, RB):
            t = pl.load(x, [r, 0], [RB, RC])
            work = pl.create_tile([RB, RC], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            ss: pl.Tile[[RB, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), work)
            rms = pl.sqrt(pl.add(pl.mul(ss, 1.0 / RC), EPS))
            pl.store(pl.col_expand_mul(pl.row_expand_div(t, rms), g), [r, 0], out)
    return out


@pl.jit
def rmsnorm_dsl_tasks(x: pl.Tensor[[RR, RC], pl.FP32], gamma: pl.Tensor[[1, RC], pl.FP32],
                      out: pl.Out[pl.Tensor[[RR, RC], pl.FP32]]):
    for r in pl.parallel(0, RR, RB):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [RB, RC])
            work = pl.create_tile([RB, RC], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            ss: pl.Tile[[RB, 1], pl.FP32] = pl.row_sum(pl.mul(t, t), work)
            rms = pl.sqrt(pl.add(pl.mul(ss, 1.0 / RC), EPS))
            pl.store(pl.col_expand_mul(pl.row_expand_div(t, rms), pl.load(gamma, [0, 0], [1, RC])), [r, 0], out)
    return out


# --------------------------------------------------------------- the rows
def timed_row(name: str, out: torch.Tensor, expected: torch.Tensor, tolerance: dict,
              runs: dict[str, Callable[[], object]]) -> tuple[str, dict[str, float]]:
    """Runs and checks each version against `expected`, then times it."""
    seconds = {}
    for version, run in runs.items():
        out.fill_(float("nan"))
        run()
        torch.testing.assert_close(out, expected, **tolerance, msg=lambda m: f"{name}, {version}: {m}")
        seconds[version] = median_seconds(run)
    return name, seconds


def rows() -> list[tuple[str, dict[str, float]]]:
    torch.manual_seed(0)
    a, b, c = torch.randn(MM, MM).half(), torch.randn(MM, MM).half(), torch.empty(MM, MM)
    x, y = torch.randn(SR, SC), torch.empty(SR, SC)
    xr, gamma, yr = torch.randn(RR, RC), torch.randn(1, RC), torch.empty(RR, RC)
    rms = xr * torch.rsqrt(xr.pow(2).mean(dim=-1, keepdim=True) + EPS) * gamma
    return [
        timed_row(f"GEMM {MM}^3 FP16->FP32", c, a.float() @ b.float(), {"rtol": 1e-3, "atol": 1e-2}, {
            "external": lambda: gemm_external(a, b, c, config=CONFIG),
            "dsl_one_task": lambda: gemm_dsl_one_task(a, b, c, config=CONFIG),
            "dsl_tasks": lambda: gemm_dsl_tasks(a, b, c, config=CONFIG)}),
        timed_row(f"row softmax {SR}x{SC} FP32", y, torch.softmax(x, dim=-1), {"rtol": 1e-5, "atol": 1e-6}, {
            "external": lambda: softmax_external(x, y, config=CONFIG),
            "dsl_one_task": lambda: softmax_dsl_one_task(x, y, config=CONFIG),
            "dsl_tasks": lambda: softmax_dsl_tasks(x, y, config=CONFIG)}),
        timed_row(f"RMSNorm {RR}x{RC} FP32", yr, rms, {"rtol": 1e-4, "atol": 1e-4}, {
            "external": lambda: rmsnorm_external(xr, gamma, yr, config=CONFIG),
            "dsl_one_task": lambda: rmsnorm_dsl_one_task(xr, gamma, yr, config=CONFIG),
            "dsl_tasks": lambda: rmsnorm_dsl_tasks(xr, gamma, yr, config=CONFIG)}),
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as build:
        os.environ["PYPTO_PROG_BUILD_DIR"] = build
        table = rows()
    header = f"{'kernel':<28} {'external ms':>12} {'DSL 1 task ms':>14} {'ratio':>7} {'DSL tasks ms':>13} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for name, s in table:
        ext, one, many = s["external"], s["dsl_one_task"], s["dsl_tasks"]
        print(f"{name:<28} {ext * 1e3:>12.2f} {one * 1e3:>14.2f} {one / ext:>7.2f} {many * 1e3:>13.2f} "
              f"{many / ext:>7.2f}")
    print("ratio = DSL / external (above 1: the hand-written kernel is faster); external kernels use one core,")
    print("'DSL tasks' spreads the blocks over the simulated clusters.")


if __name__ == "__main__":
    main()
