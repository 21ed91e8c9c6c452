"""The PMU report of a traced run: ``dfx_outputs/pmu.csv``.

One row per kernel a core ran (a task's block on one core), with what the
simulator's performance model charged it. ``RunConfig(enable_pmu=N)`` picks
the event groups, as on the device:

* 2 ``PIPE_UTILIZATION``: per pipe (MTE2, MTE1, V, M, MTE3, FIX) the busy
  cycles, their share of the kernel's cycles, and the instructions issued;
  for a mixed kernel's cores, the tiles pushed and popped through the
  cluster's cross-core pipe and the cycles its waits cost;
* 4 ``MEMORY``: per memory space (Vec, Mat, Left, Right, Acc, Bias, GM) the
  bytes read and written, and the GM bandwidth the kernel would draw; the
  bytes pushed and popped through the cross-core pipe;
* 6 (or ``True``/1): both.

Every row starts with the task, kernel, block, the core that ran it on the
host and the kernel's modelled cycles and duration in device time.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from pypto.runtime.trace_names import CORE_TRACKS, core_track, member_kernels

PMU_FILE = "pmu.csv"
PIPE_UTILIZATION = 2
MEMORY = 4
ALL_EVENTS = PIPE_UTILIZATION | MEMORY
EVENT_NAMES = {PIPE_UTILIZATION: "PIPE_UTILIZATION", MEMORY: "MEMORY"}

PIPES = ("MTE2", "MTE1", "V", "M", "MTE3", "FIX")
SPACES = ("Vec", "Mat", "Left", "Right", "Acc", "Bias", "GM")


def events_of(level: int) -> int:
    """The event groups `RunConfig.enable_pmu` asks for: 1 means all of them."""
    return ALL_EVENTS if level == 1 else level


def check_level(level: int) -> None:
    """ValueError unless `level` is 0, 1 or a combination of the event groups."""
    if level < 0 or level & ~(ALL_EVENTS | 1) or (level & 1 and level != 1):
        raise ValueError(f"RunConfig.enable_pmu must be 0 (off), 1/True (all events), 2 (PIPE_UTILIZATION), "
                         f"4 (MEMORY) or 6 (both), got {level!r}")


def columns(events: int) -> list[str]:
    names = ["task_id", "kernel", "block", "core", "cluster", "cycles", "device_us"]
    if events & PIPE_UTILIZATION:
        for pipe in PIPES:
            names += [f"{pipe}_busy_cycles", f"{pipe}_utilization", f"{pipe}_instructions"]
        names += ["pipe_tiles_pushed", "pipe_tiles_popped", "pipe_wait_cycles"]
    if events & MEMORY:
        for space in SPACES:
            names += [f"{space}_bytes_read", f"{space}_bytes_written"]
        names += ["GM_gb_per_second", "pipe_bytes_pushed", "pipe_bytes_popped"]
    return names


def rows(trace: Any, events: int, ghz: float) -> list[dict[str, Any]]:
    """One row per measured core span of `trace`, in task and block order."""
    out = []
    for task in trace.tasks:
        kernels = member_kernels(task)
        for span in task.spans:
            counters = span.counters
            if not counters.measured:
                continue
            row = {"task_id": task.id, "kernel": kernels.get((span.core_type, span.lane), task.kernel),
                   "block": span.block_idx, "core": CORE_TRACKS[core_track(span)], "cluster": span.cluster_id,
                   "cycles": counters.cycles, "device_us": _round(counters.cycles / ghz / 1000.0)}
            if events & PIPE_UTILIZATION:
                row |= _pipe_columns(counters)
            if events & MEMORY:
                row |= _memory_columns(counters, ghz)
            out.append(row)
    return out


def write(trace: Any, path: Path, level: int, ghz: float) -> Path:
    events = events_of(level)
    with Path(path).open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns(events))
        writer.writeheader()
        writer.writerows(rows(trace, events, ghz))
    return Path(path)


def _pipe_columns(counters: Any) -> dict[str, Any]:
    busy, issued = counters.pipe_busy_cycles, counters.pipe_instructions
    row = {}
    for pipe in PIPES:
        row[f"{pipe}_busy_cycles"] = busy[pipe]
        row[f"{pipe}_utilization"] = _round(busy[pipe] / counters.cycles) if counters.cycles else 0.0
        row[f"{pipe}_instructions"] = issued[pipe]
    traffic = _pipe_traffic(counters)
    row["pipe_tiles_pushed"] = traffic.get("tiles_pushed", 0)
    row["pipe_tiles_popped"] = traffic.get("tiles_popped", 0)
    row["pipe_wait_cycles"] = traffic.get("wait_cycles", 0)
    return row


def _pipe_traffic(counters: Any) -> dict[str, int]:
    """The kernel's cross-core pipe counters (CoreCounters.pipe); empty for counters without them."""
    return dict(getattr(counters, "pipe", None) or {})


def _memory_columns(counters: Any, ghz: float) -> dict[str, Any]:
    read, written = counters.bytes_read, counters.bytes_written
    row = {}
    for space in SPACES:
        row[f"{space}_bytes_read"] = read[space]
        row[f"{space}_bytes_written"] = written[space]
    seconds = counters.cycles / (ghz * 1e9)
    row["GM_gb_per_second"] = _round((read["GM"] + written["GM"]) / seconds / 1e9) if seconds else 0.0
    traffic = _pipe_traffic(counters)
    row["pipe_bytes_pushed"] = traffic.get("bytes_pushed", 0)
    row["pipe_bytes_popped"] = traffic.get("bytes_popped", 0)
    return row


def _round(value: float) -> float:
    return round(value, 4)
