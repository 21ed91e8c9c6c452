"""Allreduce bandwidth: our credit-barrier mesh and ring (what pld.tensor.allreduce runs on the host and in
kernels) against the transport's MPI_Allreduce, on the same window buffers, in one session.

    .venv/bin/python bench/allreduce_bench.py [--ranks 2,4] [--mib 1,4,16,64] [--json out.json]
    (make bench runs it)

For each world size the script starts one ``mpirun`` job of this script; every rank allocates a window per
payload size (FP32), and each algorithm reduces it in place: mesh (every rank pulls the whole payload from every
peer), ring (reduce-scatter then allgather, 2(P-1) rounds of one segment from the left neighbour) and
``MPI_Allreduce`` (the engine's ``comm_allreduce``). The result is checked once per configuration against the
expected sum. An iteration's time is the slowest rank's (each starts after an engine barrier); the table gives
the median's algorithm bandwidth (payload bytes / time) and each ratio to MPI_Allreduce (above 1: ours is
faster). Nothing is asserted about speed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIB = 1 << 20
ALGORITHMS = ("mesh", "ring", "mpi")
# Timed iterations per payload (after the checked one); fewer for the large ones keeps a run short on 2 cores.
ITERATIONS = {1: 40, 4: 20, 16: 8, 64: 4}


def iterations(mib: int) -> int:
    return ITERATIONS.get(mib, max(4, 64 // max(mib, 1)))


# ----------------------------------------------------------------------------------------------- one rank

def run_rank(sizes_mib: list[int], out_path: str) -> None:
    import torch

    from pypto import _core
    from pypto.runtime import distributed, windows

    distributed.start(distributed.DistributedConfig())
    me, world = distributed.rank(), distributed.world_size()
    mesh_sig = windows.allocate(4 * world).view([world, 1], torch.int32)
    ring_sig = windows.allocate(4 * 2 * (world - 1) * world).view([2 * (world - 1), world], torch.int32)
    slowest = torch.zeros(1, dtype=torch.float32)

    def run(name: str, data: torch.Tensor) -> None:
        if name == "mesh":
            windows.allreduce_window(data, mesh_sig, 0)
        elif name == "ring":
            windows.allreduce_window(data, ring_sig, 0, ring=True)
        else:
            windows.engine_allreduce(data, 0)

    rows = []
    for mib in sizes_mib:
        count = mib * MIB // 4
        buffer = windows.allocate(count * 4)
        data = buffer.view([count], torch.float32)
        # Small integers: every summation order gives the exact sum P * pattern + P(P-1)/2.
        pattern = (torch.arange(count, dtype=torch.int32) % 1024).to(torch.float32)
        mine = pattern + me
        expected = pattern * world + world * (world - 1) / 2
        for name in ALGORITHMS:
            data.copy_(mine)
            windows.barrier()
            run(name, data)
            if not torch.equal(data, expected):
                bad = int((data != expected).nonzero()[0])
                raise AssertionError(f"{name} allreduce of {mib} MiB on {world} ranks: element {bad} is "
                                     f"{float(data[bad])}, expected {float(expected[bad])}")
        # The algorithms take turns, so that they share whatever else the machine is doing.
        samples: dict[str, list[float]] = {name: [] for name in ALGORITHMS}
        for _ in range(iterations(mib)):
            for name in ALGORITHMS:
                data.copy_(mine)
                windows.barrier()
                start = time.perf_counter()
                run(name, data)
                slowest[0] = time.perf_counter() - start
                windows.engine_allreduce(slowest, 1)  # Max over the ranks
                samples[name].append(float(slowest[0]))
        for name in ALGORITHMS:
            seconds = statistics.median(samples[name])
            rows.append({"ranks": world, "mib": mib, "algorithm": name, "iterations": len(samples[name]),
                         "median_s": seconds, "gb_per_s": mib * MIB / seconds / 1e9})
        _core.comm_free_window(buffer.window_id)
    if me == 0:
        Path(out_path).write_text(json.dumps(rows))


# ----------------------------------------------------------------------------------------------- the driver

def table(rows: list[dict]) -> str:
    by_key = {(r["ranks"], r["mib"], r["algorithm"]): r for r in rows}
    lines = ["| ranks | payload | mesh GB/s | ring GB/s | MPI_Allreduce GB/s | mesh / MPI | ring / MPI |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for ranks, mib in sorted({(r["ranks"], r["mib"]) for r in rows}):
        bw = {a: by_key[(ranks, mib, a)]["gb_per_s"] for a in ALGORITHMS}
        lines.append(f"| {ranks} | {mib} MiB | {bw['mesh']:.2f} | {bw['ring']:.2f} | {bw['mpi']:.2f} | "
                     f"{bw['mesh'] / bw['mpi']:.2f} | {bw['ring'] / bw['mpi']:.2f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ranks", default="2,4", help="world sizes, one mpirun job each (default 2,4)")
    parser.add_argument("--mib", default="1,4,16,64", help="FP32 payload sizes in MiB (default 1,4,16,64)")
    parser.add_argument("--json", help="also write the measurements here")
    parser.add_argument("--rank-out", help=argparse.SUPPRESS)  # set in the ranks: where rank 0 writes its rows
    args = parser.parse_args()
    sizes = [int(s) for s in args.mib.split(",")]
    if args.rank_out:
        run_rank(sizes, args.rank_out)
        return

    from pypto.runtime import launch

    rows: list[dict] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for ranks in (int(r) for r in args.ranks.split(",")):
            out = os.path.join(tmp, f"np{ranks}.json")
            command = launch.mpirun_command(ranks, [sys.executable, __file__, "--mib", args.mib, "--rank-out", out])
            done = subprocess.run(command, env=launch.launcher_environment(), capture_output=True, text=True)
            if done.returncode != 0:
                sys.exit(f"allreduce bench on {ranks} ranks failed (exit {done.returncode}):\n{done.stdout}"
                         f"{done.stderr[-4000:]}")
            rows += json.loads(Path(out).read_text())
    print(f"allreduce, FP32 Sum, in place on window buffers ({time.perf_counter() - started:.0f} s); "
          "algorithm bandwidth = payload bytes / median time of the slowest rank")
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
