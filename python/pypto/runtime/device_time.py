"""A traced run replayed in simulated device time.

During a traced run every kernel is charged cycles by the simulator's
performance model (``CoreSpan.counters``, see docs/runtime-dfx.md). The host
ran the blocks on as many worker threads as it has; the device has the
platform's clusters (24 on a2a3). `schedule` places every block on the
device's cores the way its scheduler would: a task is ready when the tasks it
depends on have finished, its blocks go in order of readiness to the core of
the right kind that is free first (a whole cluster for a task with AIC and
AIV kernels), and each block costs the platform's dispatch latency plus its
kernel's modelled cycles.

The result has the shape of a ``RunTrace`` (tasks with spans, times in ns of
device time), so the swimlane writer draws it like a host trace.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

# pypto.runtime.dfx's track order: a cluster's AIC, then its AIV lanes.
AIC_SLOT = 0


@dataclass
class DeviceSpan:
    block_idx: int
    cluster_id: int
    core_type: str
    lane: int
    dispatch_ns: float
    start_ns: float
    end_ns: float
    retire_ns: float
    counters: Any


@dataclass
class DeviceTask:
    id: int
    kernel: str
    kernels: list[str]
    core_num: int
    deps: list[int]
    ready_ns: float = -1
    spans: list[DeviceSpan] = field(default_factory=list)
    # The orchestrator is not modelled: submits take no device time.
    submit_begin_ns: float = 0
    submit_end_ns: float = 0


@dataclass
class DeviceTrace:
    clusters: int
    ghz: float
    dispatch_cycles: int
    tasks: list[DeviceTask]

    @property
    def makespan_ns(self) -> float:
        return max((s.retire_ns for t in self.tasks for s in t.spans), default=0.0)


@dataclass(frozen=True)
class DeviceFigures:
    clusters: int
    aiv_per_cluster: int
    ghz: float
    dispatch_cycles: int

    @staticmethod
    def of(platform: dict[str, Any]) -> DeviceFigures:
        """The figures of a `pypto.platforms.get(...)` dict; a file without them gets 1 GHz and free dispatch."""
        throughput = platform.get("throughput", {})
        return DeviceFigures(clusters=int(platform["clusters"]), aiv_per_cluster=int(platform["aiv_per_cluster"]),
                             ghz=float(throughput.get("clock", {}).get("ghz", 1.0)),
                             dispatch_cycles=int(throughput.get("scheduler", {}).get("dispatch_cycles", 0)))


@dataclass
class _Cores:
    """When each core of the device is next free, in cycles: (cluster, slot) with slot 0 the AIC."""
    figures: DeviceFigures
    free: dict[tuple[int, int], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        slots = 1 + self.figures.aiv_per_cluster
        self.free = {(c, s): 0 for c in range(self.figures.clusters) for s in range(slots)}

    def first_free(self, aic: bool) -> tuple[int, int]:
        """The core of that kind free first (lowest cluster on a tie)."""
        kind = [core for core in self.free if (core[1] == AIC_SLOT) == aic]
        return min(kind, key=lambda core: (self.free[core], core))

    def first_free_cluster(self, slots: list[int]) -> int:
        """The cluster whose cores `slots` are all free first."""
        return min(range(self.figures.clusters),
                   key=lambda c: (max(self.free[(c, s)] for s in slots), c))


def schedule(trace: Any, platform: dict[str, Any]) -> DeviceTrace:
    """`trace` (a ``RunTrace`` whose spans carry counters) on the device `platform` describes."""
    figures = DeviceFigures.of(platform)
    cores = _Cores(figures)
    tasks = {t.id: t for t in trace.tasks}
    placed: dict[int, DeviceTask] = {}
    finish: dict[int, int] = {}
    waiting = {t.id: len(_known_deps(t, tasks)) for t in trace.tasks}
    successors: dict[int, list[int]] = defaultdict(list)
    for t in trace.tasks:
        for pred in _known_deps(t, tasks):
            successors[pred].append(t.id)
    ready = [(0, t.id) for t in trace.tasks if waiting[t.id] == 0]
    heapq.heapify(ready)
    while ready:
        ready_cycle, task_id = heapq.heappop(ready)
        task = tasks[task_id]
        placed[task_id], finish[task_id] = _place(task, ready_cycle, cores, figures)
        for succ in successors[task_id]:
            waiting[succ] -= 1
            if waiting[succ] == 0:
                heapq.heappush(ready, (max(finish[p] for p in _known_deps(tasks[succ], tasks)), succ))
    return DeviceTrace(clusters=figures.clusters, ghz=figures.ghz, dispatch_cycles=figures.dispatch_cycles,
                       tasks=[placed[t.id] for t in trace.tasks if t.id in placed])


def _known_deps(task: Any, tasks: dict[int, Any]) -> list[int]:
    """The deps of `task` that ran in this trace (earlier runs' tasks had finished before it began)."""
    return [d for d in task.deps if d in tasks]


def _blocks(task: Any) -> dict[int, list[Any]]:
    by_block: dict[int, list[Any]] = defaultdict(list)
    for span in task.spans:
        by_block[span.block_idx].append(span)
    return dict(sorted(by_block.items()))


def _place(task: Any, ready_cycle: int, cores: _Cores, figures: DeviceFigures) -> tuple[DeviceTask, int]:
    """The task's blocks on the device, and the cycle its last block ends (a join ends when it is ready)."""
    device_task = DeviceTask(id=task.id, kernel=task.kernel, kernels=list(task.kernels), core_num=task.core_num,
                             deps=list(task.deps), ready_ns=ready_cycle / figures.ghz)
    finish = ready_cycle
    for block_idx, members in _blocks(task).items():
        spans, end = _place_block(block_idx, members, ready_cycle, cores, figures)
        device_task.spans.extend(spans)
        finish = max(finish, end)
    return device_task, finish


def _place_block(block_idx: int, members: list[Any], ready_cycle: int, cores: _Cores,
                 figures: DeviceFigures) -> tuple[list[DeviceSpan], int]:
    """One block on the device: a lone AIC or AIV kernel on the first free core of its kind, a cluster's kernels
    (AIC and AIV lanes together) on the first free cluster."""
    if len(members) == 1:
        cluster, slot = cores.first_free(aic=members[0].core_type == "AIC")
        homes = [(members[0], slot)]
    else:
        slots = [_slot(m) for m in members]
        cluster = cores.first_free_cluster(slots)
        homes = list(zip(members, slots))
    begin = max([ready_cycle] + [cores.free[(cluster, slot)] for _, slot in homes])
    start = begin + figures.dispatch_cycles
    end = start + max(_cycles(m) for m, _ in homes)
    spans = []
    for member, slot in homes:
        cores.free[(cluster, slot)] = end
        spans.append(DeviceSpan(block_idx=block_idx, cluster_id=cluster,
                                core_type="AIC" if slot == AIC_SLOT else "AIV", lane=max(0, slot - 1),
                                dispatch_ns=begin / figures.ghz, start_ns=start / figures.ghz,
                                end_ns=(start + _cycles(member)) / figures.ghz, retire_ns=end / figures.ghz,
                                counters=member.counters))
    return spans, end


def _slot(span: Any) -> int:
    return AIC_SLOT if span.core_type == "AIC" else 1 + span.lane


def _cycles(span: Any) -> int:
    return span.counters.cycles if span.counters.measured else 0
