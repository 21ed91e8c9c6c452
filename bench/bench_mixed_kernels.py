"""A mixed kernel vs. the same computation as two kernels, in one process.

    .venv/bin/python bench/bench_mixed_kernels.py        (make bench runs it)

The workload is a linear layer with bias and ReLU, relu(x @ w + bias), in
row blocks of a pl.parallel loop, written two ways:

* mixed: one pl.at scope per block with pl.split(pl.SplitMode.UP_DOWN); the
  compiler makes it one cluster task per block, the matmul on the AIC and
  bias + ReLU on both AIV lanes, joined by the cross-core pipe
  (examples/intermediate/08_mixed_fused_linear.py);
* two kernels: a matmul task that stores the block into a tensor in global
  memory, then a bias + ReLU task that loads it back, on one AIV
  (examples/intermediate/01_fused_linear.py).

For each size it prints the median wall time per call of each (compiled
once, warmed up, then called PYPTO_BENCH_ROUNDS times, default 7) and the
ratio mixed / two kernels (below 1: the mixed kernel is faster), then the
same for the modelled device time of one traced run (the simulator's
performance model replayed on the platform's cores, docs/runtime-dfx.md).
Both results are checked against torch first. Nothing is asserted about
speed.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch
from bench_kernels import ROUNDS, median_seconds  # bench/ is the script's folder, so on sys.path

import pypto.language as pl
from pypto import platforms
from pypto.runtime import RunConfig, device_time

PLATFORM = "a2a3sim"
CONFIG = RunConfig(platform=PLATFORM)




# ----------------------------------------------------------------- kernels


def mixed_linear(m: int, k: int, n: int, rows: int):
    """relu(x @ w + bias), one mixed kernel per block of `rows` rows."""

    @pl.jit
    def mixed_linear_relu(x: pl.Tensor[[m, k], pl.FP16], w: pl.Tensor[[k, n], pl.FP16],
                          bias: pl.Tensor[[1, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
        for r in pl.parallel(0, m, rows):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear",
                       optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=2)]):
                acc = pl.matmul(pl.load(x, [r, 0], [rows, k], target_memory=pl.Mem.Mat),
                                pl.load(w, [0, 0], [k, n], target_memory=pl.Mem.Mat))
                pl.store(pl.relu(pl.col_expand_add(acc, pl.load(bias, [0, 0], [1, n]))), [r, 0], out)
        return out

    return mixed_linear_relu


def two_kernel_linear(m: int, k: int, n: int, rows: int):
    """relu(x @ w + bias), per block of `rows` rows a matmul kernel and a bias + ReLU kernel joined by `h`."""

    @pl.jit
    def two_kernel_linear_relu(x: pl.Tensor[[m, k], pl.FP16], w: pl.Tensor[[k, n], pl.FP16],
                               bias: pl.Tensor[[1, n], pl.FP32], out: pl.Out[pl.Tensor[[m, n], pl.FP32]]):
        h = pl.create_tensor([m, n], pl.FP32)
        for r in pl.parallel(0, m, rows):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="linear"):
                acc = pl.matmul(pl.load(x, [r, 0], [rows, k], target_memory=pl.Mem.Mat),
                                pl.load(w, [0, 0], [k, n], target_memory=pl.Mem.Mat))
                pl.store(acc, [r, 0], h)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="bias_relu"):
                th = pl.load(h, [r, 0], [rows, n])
                pl.store(pl.relu(pl.col_expand_add(th, pl.load(bias, [0, 0], [1, n]))), [r, 0], out)
        return out

    return two_kernel_linear_relu


# (M, K, N, rows per block): the example's single block, and a layer of eight blocks.
SIZES = [(64, 128, 64, 64), (1024, 256, 128, 128)]


# --------------------------------------------------------------- the rows


def device_ns(kernel: Any, args: tuple[torch.Tensor, ...]) -> float:
    """The modelled device time of one traced run (ns): the run's blocks placed on the platform's cores."""
    compiled = kernel.compile(*args, config=CONFIG)
    _, trace = compiled.executable.run_traced(compiled.entry, list(args))
    return device_time.schedule(trace, platforms.get(PLATFORM)).makespan_ns


def size_rows(m: int, k: int, n: int, rows: int) -> list[tuple[str, float, float, float, float]]:
    torch.manual_seed(0)
    x, w, bias = torch.randn(m, k).half(), torch.randn(k, n).half(), torch.randn(1, n)
    expected = torch.relu(x.float() @ w.float() + bias)
    mixed, split = mixed_linear(m, k, n, rows), two_kernel_linear(m, k, n, rows)
    out_mixed, out_split = torch.full((m, n), float("nan")), torch.full((m, n), float("nan"))
    mixed(x, w, bias, out_mixed, config=CONFIG)
    split(x, w, bias, out_split, config=CONFIG)
    torch.testing.assert_close(out_mixed, expected, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(out_split, expected, rtol=1e-4, atol=1e-3)
    wall_mixed = median_seconds(lambda: mixed(x, w, bias, out_mixed, config=CONFIG), warmup=2)
    wall_split = median_seconds(lambda: split(x, w, bias, out_split, config=CONFIG), warmup=2)
    dev_mixed = device_ns(mixed, (x, w, bias, out_mixed))
    dev_split = device_ns(split, (x, w, bias, out_split))
    torch.testing.assert_close(out_mixed, expected, rtol=1e-4, atol=1e-3)
    torch.testing.assert_close(out_split, expected, rtol=1e-4, atol=1e-3)
    name = f"linear+bias+ReLU {m}x{k}x{n}, {m // rows} block{'s' if m > rows else ''} of {rows} rows"
    return [(name, wall_mixed, wall_split, dev_mixed, dev_split)]


def main() -> None:
    with tempfile.TemporaryDirectory() as build:
        os.environ["PYPTO_PROG_BUILD_DIR"] = str(Path(build))
        rows = [row for size in SIZES for row in size_rows(*size)]
    print(f"{'workload':54} {'mixed ms':>9} {'2-kern ms':>10} {'ratio':>6}   {'mixed us':>9} {'2-kern us':>10} "
          f"{'ratio':>6}")
    print(f"{'':54} {'(wall time per call)':>27}   {'(modelled device time)':>27}")
    for name, wall_mixed, wall_split, dev_mixed, dev_split in rows:
        print(f"{name:54} {wall_mixed * 1e3:9.3f} {wall_split * 1e3:10.3f} {wall_mixed / wall_split:6.2f}   "
              f"{dev_mixed / 1e3:9.2f} {dev_split / 1e3:10.2f} {dev_mixed / dev_split:6.2f}")
    print(f"\n(ratio = mixed / two kernels, below 1: the mixed kernel is faster; wall times are medians of {ROUNDS} "
          f"rounds after 2 warm-up calls; device time on {PLATFORM}'s modelled cores)")


if __name__ == "__main__":
    main()
