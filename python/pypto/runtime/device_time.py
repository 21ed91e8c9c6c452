"""A traced run replayed in simulated device time.

During a traced run every kernel is charged cycles by the simulator's
performance model (``CoreSpan.counters``, see docs/runtime-dfx.md). The host
ran the blocks on as many worker threads as it has; the device has the
platform's clusters (24 on a2a3). `schedule` replays the run on the device's
cores the way its scheduler would, in an event-driven simulation:

* a task is ready when the tasks it depends on have finished; its blocks
  queue in order of readiness and each goes to the first free core of its
  kind (a whole cluster for a task with AIC and AIV kernels);
* a block holds its core for the platform's dispatch latency, then for its
  kernel's modelled cycles;
* the kernels running at a time share the chip's global-memory bandwidth
  (``throughput.DDR.gb_per_second``): a kernel draws its GM bytes evenly over
  its cycles, and when the running kernels together ask for more than the
  chip has, all of them slow down in proportion.

The result has the shape of a ``RunTrace`` (tasks with spans, times in ns of
device time), so the swimlane writer draws it like a host trace.
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from pypto.runtime.trace_names import core_track

# A core's slot in its cluster, as trace_names.core_track numbers it: the AIC, then the AIV lanes.
AIC_SLOT = 0
# Work below this many cycles is done: float rounding of the shared-bandwidth steps.
_EPSILON = 1e-6


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
    # (ns, GB/s): the global-memory bandwidth the running kernels draw, from each time on.
    gm_usage: list[tuple[float, float]] = field(default_factory=list)

    @property
    def makespan_ns(self) -> float:
        return max((s.retire_ns for t in self.tasks for s in t.spans), default=0.0)


@dataclass(frozen=True)
class DeviceFigures:
    clusters: int
    aiv_per_cluster: int
    ghz: float
    dispatch_cycles: int
    gm_bytes_per_cycle: float | None  # the chip's global-memory bandwidth; None: unlimited

    @staticmethod
    def of(platform: dict[str, Any]) -> DeviceFigures:
        """The figures of a `pypto.platforms.get(...)` dict; a file without them gets 1 GHz, free dispatch and
        unlimited global-memory bandwidth."""
        throughput = platform.get("throughput", {})
        ghz = float(throughput.get("clock", {}).get("ghz", 1.0))
        gb_per_second = throughput.get("DDR", {}).get("gb_per_second")
        return DeviceFigures(clusters=int(platform["clusters"]), aiv_per_cluster=int(platform["aiv_per_cluster"]),
                             ghz=ghz, dispatch_cycles=int(throughput.get("scheduler", {}).get("dispatch_cycles", 0)),
                             gm_bytes_per_cycle=float(gb_per_second) / ghz if gb_per_second else None)


@dataclass
class _Kernel:
    """One core's kernel of a placed block, while it runs."""
    span: Any
    slot: int
    start: float
    work: float      # cycles left at full speed
    demand: float    # GM bytes per cycle at full speed
    end: float = -1.0


@dataclass
class _Block:
    task: Any
    block_idx: int
    members: list[Any]
    ready: float
    cluster: int = -1
    slots: list[int] = field(default_factory=list)  # by member, once placed (a lone AIV kernel takes either lane)
    begin: float = 0.0
    kernels: list[_Kernel] = field(default_factory=list)


class _Device:
    """The simulation: cores, queued blocks, running kernels and the clock, in cycles."""

    def __init__(self, trace: Any, figures: DeviceFigures) -> None:
        self.figures = figures
        self.tasks = {t.id: t for t in trace.tasks}
        self.order = [t.id for t in trace.tasks]
        self.busy: dict[tuple[int, int], bool] = {
            (c, s): False for c in range(figures.clusters) for s in range(1 + figures.aiv_per_cluster)}
        self.waiting = {t.id: len(self._deps(t)) for t in trace.tasks}
        self.successors: dict[int, list[int]] = defaultdict(list)
        for t in trace.tasks:
            for pred in self._deps(t):
                self.successors[pred].append(t.id)
        self.queue: deque[_Block] = deque()
        self.starting: list[tuple[float, int, _Block]] = []  # (kernel start, tiebreak, block) during dispatch
        self.running: list[_Block] = []
        self.unfinished_blocks: dict[int, int] = {}
        self.placed: dict[int, DeviceTask] = {}
        self.now = 0.0
        self._tiebreak = 0
        self.gm_usage: list[tuple[float, float]] = []

    def _deps(self, task: Any) -> list[int]:
        """The deps of `task` that ran in this trace (earlier runs' tasks had finished before it began)."""
        return [d for d in task.deps if d in self.tasks]

    def run(self) -> DeviceTrace:
        for task_id in self.order:
            if self.waiting[task_id] == 0:
                self._release(task_id)
        while self.queue or self.starting or self.running:
            self._dispatch()
            self._advance()
        self._record_gm_usage(0.0)
        return DeviceTrace(clusters=self.figures.clusters, ghz=self.figures.ghz,
                           dispatch_cycles=self.figures.dispatch_cycles,
                           tasks=[self.placed[t] for t in self.order if t in self.placed], gm_usage=self.gm_usage)

    def _record_gm_usage(self, bytes_per_cycle: float) -> None:
        """From now on the running kernels draw this much global-memory bandwidth (kept only when it changes)."""
        gb_per_second = bytes_per_cycle * self.figures.ghz
        if self.gm_usage and self.gm_usage[-1][1] == gb_per_second:
            return
        if self.gm_usage and self.gm_usage[-1][0] == self._ns(self.now):
            self.gm_usage.pop()
        self.gm_usage.append((self._ns(self.now), gb_per_second))

    def _ns(self, cycles: float) -> float:
        return cycles / self.figures.ghz

    def _release(self, task_id: int) -> None:
        """The task is ready now: its blocks queue; a task without blocks (a join) finishes at once."""
        task = self.tasks[task_id]
        self.placed[task_id] = DeviceTask(id=task.id, kernel=task.kernel, kernels=list(task.kernels),
                                          core_num=task.core_num, deps=list(task.deps), ready_ns=self._ns(self.now))
        blocks = _blocks(task)
        self.unfinished_blocks[task_id] = len(blocks)
        for block_idx, members in blocks.items():
            self.queue.append(_Block(task, block_idx, members, self.now))
        if not blocks:
            self._finish_task(task_id)

    def _finish_task(self, task_id: int) -> None:
        for succ in self.successors[task_id]:
            self.waiting[succ] -= 1
            if self.waiting[succ] == 0:
                self._release(succ)

    def _dispatch(self) -> None:
        """Every queued block that has a free core (or cluster) of its kind starts its dispatch now."""
        still_queued: deque[_Block] = deque()
        for block in self.queue:
            home = self._free_home(block.members)
            if home is None:
                still_queued.append(block)
                continue
            (block.cluster, block.slots), block.begin = home, self.now
            for slot in block.slots:
                self.busy[(block.cluster, slot)] = True
            self._tiebreak += 1
            heapq.heappush(self.starting, (self.now + self.figures.dispatch_cycles, self._tiebreak, block))
        self.queue = still_queued

    def _free_home(self, members: list[Any]) -> tuple[int, list[int]] | None:
        """The lowest cluster with free cores for a block's kernels, and their slots: a cluster's own for a
        block of several kernels, any free core of its kind for a lone one; None when there is none now."""
        wanted = [core_track(m) for m in members]
        for cluster in range(self.figures.clusters):
            if len(members) > 1:
                if not any(self.busy[(cluster, s)] for s in wanted):
                    return cluster, wanted
                continue
            wants_aic = wanted[0] == AIC_SLOT
            for slot in range(1 + self.figures.aiv_per_cluster):
                if (slot == AIC_SLOT) == wants_aic and not self.busy[(cluster, slot)]:
                    return cluster, [slot]
        return None

    def _speed(self) -> float:
        """How fast the running kernels progress: 1, or less when together they ask for more GM bandwidth
        than the chip has."""
        bandwidth = self.figures.gm_bytes_per_cycle
        demand = sum(k.demand for b in self.running for k in b.kernels if k.end < 0)
        if bandwidth is None or demand <= bandwidth:
            return 1.0
        return bandwidth / demand

    def _advance(self) -> None:
        """Moves the clock to the next event: a kernel starting after its dispatch, or one finishing."""
        speed = self._speed()
        active = [k for b in self.running for k in b.kernels if k.end < 0]
        self._record_gm_usage(speed * sum(k.demand for k in active))
        next_finish = min((self.now + k.work / speed for k in active), default=float("inf"))
        next_start = self.starting[0][0] if self.starting else float("inf")
        until = min(next_finish, next_start)
        if until == float("inf"):
            block = self.queue[0]
            raise RuntimeError(f"device_time: block {block.block_idx} of task {block.task.id} needs cores "
                               f"{[core_track(m) for m in block.members]} of one cluster, which this platform's "
                               "clusters do not have")
        for kernel in active:
            kernel.work -= (until - self.now) * speed
        self.now = until
        for kernel in active:
            if kernel.work <= _EPSILON:
                kernel.end = self.now
        while self.starting and self.starting[0][0] <= self.now:
            _, _, block = heapq.heappop(self.starting)
            block.kernels = [_kernel_of(m, slot, self.now) for m, slot in zip(block.members, block.slots)]
            self.running.append(block)
        for block in [b for b in self.running if all(k.end >= 0 for k in b.kernels)]:
            self.running.remove(block)
            self._retire(block)

    def _retire(self, block: _Block) -> None:
        for slot in block.slots:
            self.busy[(block.cluster, slot)] = False
        task = self.placed[block.task.id]
        for kernel in block.kernels:
            task.spans.append(DeviceSpan(
                block_idx=block.block_idx, cluster_id=block.cluster,
                core_type="AIC" if kernel.slot == AIC_SLOT else "AIV", lane=max(0, kernel.slot - 1),
                dispatch_ns=self._ns(block.begin), start_ns=self._ns(kernel.start), end_ns=self._ns(kernel.end),
                retire_ns=self._ns(self.now), counters=kernel.span.counters))
        self.unfinished_blocks[block.task.id] -= 1
        if self.unfinished_blocks[block.task.id] == 0:
            task.spans.sort(key=lambda s: (s.block_idx, s.core_type != "AIC", s.lane))
            self._finish_task(block.task.id)


def schedule(trace: Any, platform: dict[str, Any]) -> DeviceTrace:
    """`trace` (a ``RunTrace`` whose spans carry counters) on the device `platform` describes."""
    return _Device(trace, DeviceFigures.of(platform)).run()


def _blocks(task: Any) -> dict[int, list[Any]]:
    by_block: dict[int, list[Any]] = defaultdict(list)
    for span in task.spans:
        by_block[span.block_idx].append(span)
    return dict(sorted(by_block.items()))


def _kernel_of(span: Any, slot: int, start: float) -> _Kernel:
    counters = span.counters
    cycles = float(counters.cycles) if counters.measured else 0.0
    gm_bytes = _gm_bytes(counters)
    demand = gm_bytes / cycles if cycles > 0 else 0.0
    kernel = _Kernel(span=span, slot=slot, start=start, work=cycles, demand=demand)
    if cycles <= 0:
        kernel.end = start
    return kernel


def _gm_bytes(counters: Any) -> float:
    if not counters.measured:
        return 0.0
    read, written = getattr(counters, "bytes_read", {}), getattr(counters, "bytes_written", {})
    return float(read.get("GM", 0) + written.get("GM", 0))
