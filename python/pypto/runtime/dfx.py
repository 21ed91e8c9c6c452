"""Runtime DFX outputs of one run: the swimlane and the dependency graph.

With ``RunConfig(enable_chip_swimlane=N)`` or ``RunConfig(enable_dep_gen=True)``
a run on a simulator platform is traced (``Executable.run_traced``) and this
module writes, under ``<output_dir>/dfx_outputs/``:

* ``chip_swimlane.json``: Chrome Trace Event JSON (ui.perfetto.dev,
  chrome://tracing). One process per cluster with threads AIC, AIV0, AIV1; one
  complete slice per block a core ran; flow arrows from each dependency's last
  slice to the dependent task's first. A mixed kernel's cores (a cluster
  task's AIC and AIV kernels) also get a ``pipe_wait`` slice inside their
  kernel slice for each wait on the cluster's cross-core pipe. Level 2 adds each block's dispatch and
  finish on its core, level 3 a scheduler process (ready-queue depth and when
  each task became ready), level 4 an orchestrator process (one slice per
  submit). Times are microseconds of host time since the run's first submit.
* ``chip_swimlane_device.json``: the same run in simulated device time (levels
  1-3): every block placed on the platform's cores by its modelled cycles,
  sharing the chip's global-memory bandwidth (``pypto.runtime.device_time``);
  slices carry the kernel's cycles per pipe.
* ``pmu.csv`` (``RunConfig(enable_pmu=N)``): per kernel per core, the
  modelled cycles, pipe utilisation and bytes moved (``pypto.runtime.pmu``).
* ``scope_stats/scope_stats.jsonl`` and ``scope_stats.html``
  (``RunConfig(enable_scope_stats=True)``): per scope, what its tasks asked
  of the device's rings (``pypto.runtime.scope_stats``).
* ``args_dump/args_dump.json`` and ``args_dump.bin``
  (``RunConfig(enable_dump_args=N)``): tensor arguments of tasks as the
  runtime bound them (``pypto.runtime.args_dump``).
* ``deps.json`` and ``deps.dot``: the tasks, their arguments, the buffers they
  view and every dependency edge with its source (``explicit`` deps= or an
  argument ``overlap``); 64-bit ids are strings.

See docs/runtime-dfx.md.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pypto import platforms
from pypto.runtime import args_dump, device_time, pmu, scope_stats
from pypto.runtime.trace_names import CORE_TRACKS, core_track, member_kernels

DFX_DIR = "dfx_outputs"
SWIMLANE_FILE = "chip_swimlane.json"
DEVICE_SWIMLANE_FILE = "chip_swimlane_device.json"
DEPS_FILE = "deps.json"
DOT_FILE = "deps.dot"
# What deps.json names as its runtime: the simulator's task runtime (tasks, derived deps, clusters).
RUNTIME_NAME = "pypto_sim"

LEVEL_DISPATCH = 2
LEVEL_SCHEDULER = 3
LEVEL_ORCHESTRATOR = 4


def wants_trace(config: Any) -> bool:
    """Whether a run with `config` must be traced: a swimlane, a PMU report, a dependency graph or scope
    statistics were asked for."""
    return config is not None and bool(config.enable_chip_swimlane or config.enable_dep_gen or config.enable_pmu
                                       or config.enable_scope_stats or config.enable_dump_args)


def write_outputs(trace: Any, output_dir: Path, config: Any, *, entry: str, platform: str) -> list[Path]:
    """Writes the outputs `config` asks for from a run's trace; returns the files written."""
    folder = Path(output_dir) / DFX_DIR
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    figures = platforms.get(platform)
    if config.enable_chip_swimlane:
        swimlane = swimlane_trace(trace, config.enable_chip_swimlane, entry=entry, platform=platform)
        written.append(_write_json(folder / SWIMLANE_FILE, swimlane))
        device = device_time.schedule(trace, figures)
        device_lane = swimlane_trace(device, min(config.enable_chip_swimlane, LEVEL_SCHEDULER), entry=entry,
                                     platform=platform, clock=DEVICE_CLOCK)
        written.append(_write_json(folder / DEVICE_SWIMLANE_FILE, device_lane))
    if config.enable_pmu:
        ghz = device_time.DeviceFigures.of(figures).ghz
        written.append(pmu.write(trace, folder / pmu.PMU_FILE, config.enable_pmu, ghz))
    if config.enable_scope_stats:
        written += scope_stats.write(trace, folder, config, entry=entry, platform=platform)
    if config.enable_dump_args:
        written += args_dump.write(trace, folder, config.enable_dump_args, entry=entry, platform=platform)
    if config.enable_dep_gen:
        deps = deps_document(trace, entry=entry, platform=platform)
        written.append(_write_json(folder / DEPS_FILE, deps))
        dot = folder / DOT_FILE
        dot.write_text(deps_dot(deps))
        written.append(dot)
    return written


def _write_json(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(json.dumps(document, indent=1) + "\n")
    return path


# ------------------------------------------------------------------ swimlane


def _us(ns: int) -> float:
    return ns / 1000.0


def _cluster_pid(cluster: int) -> int:
    return cluster + 1  # pid 0 reads as "no process" in some viewers


HOST_CLOCK = "us since the run's first submit (host clock)"
DEVICE_CLOCK = "us since the run's first task became ready (simulated device time)"


def swimlane_trace(trace: Any, level: int, *, entry: str = "", platform: str = "",
                   clock: str = HOST_CLOCK) -> dict[str, Any]:
    """The Chrome Trace Event document of a run at swimlane `level` (1-4): a host ``RunTrace``, or a
    ``device_time.DeviceTrace`` with `clock` DEVICE_CLOCK."""
    events = _track_names(trace.clusters)
    ghz = getattr(trace, "ghz", None)  # a DeviceTrace: the waits are drawn in modelled cycles
    for task in trace.tasks:
        events.extend(_kernel_slices(task))
        events.extend(_pipe_wait_slices(task, ghz))
        if level >= LEVEL_DISPATCH:
            events.extend(_dispatch_slices(task))
    events.extend(_dependency_flows(trace.tasks))
    if getattr(trace, "gm_usage", None):
        events.extend(_gm_usage_events(trace.gm_usage, pid=_cluster_pid(trace.clusters) + 2))
    if level >= LEVEL_SCHEDULER:
        events.extend(_scheduler_events(trace.tasks, pid=_cluster_pid(trace.clusters)))
    if level >= LEVEL_ORCHESTRATOR:
        events.extend(_orchestrator_slices(trace.tasks, pid=_cluster_pid(trace.clusters) + 1))
    return {"traceEvents": events, "displayTimeUnit": "ns",
            "otherData": {"entry": entry, "platform": platform, "swimlane_level": level,
                          "clusters": trace.clusters, "time_unit": clock}}


def _metadata(name: str, pid: int, args: dict[str, Any], tid: int = 0) -> dict[str, Any]:
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}


def _track_names(clusters: int) -> list[dict[str, Any]]:
    """A process per cluster, a thread per core, also for cores that ran nothing."""
    events = []
    for cluster in range(clusters):
        pid = _cluster_pid(cluster)
        events.append(_metadata("process_name", pid, {"name": f"cluster {cluster}"}))
        events.append(_metadata("process_sort_index", pid, {"sort_index": pid}))
        for tid, core in enumerate(CORE_TRACKS):
            events.append(_metadata("thread_name", pid, {"name": core}, tid))
            events.append(_metadata("thread_sort_index", pid, {"sort_index": tid}, tid))
    return events


def _slice(name: str, cat: str, pid: int, tid: int, begin_ns: int, end_ns: int,
           args: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "cat": cat, "ph": "X", "pid": pid, "tid": tid, "ts": _us(begin_ns),
            "dur": _us(end_ns - begin_ns), "args": args}


def _kernel_slices(task: Any) -> Iterable[dict[str, Any]]:
    kernels = member_kernels(task)
    for span in task.spans:
        core = CORE_TRACKS[core_track(span)]
        kernel = kernels.get((span.core_type, span.lane), task.kernel)
        name = f"{kernel} (task {task.id}, block {span.block_idx}/{task.core_num})"
        args = {"task_id": str(task.id), "kernel": kernel, "task_kernel": task.kernel, "block": span.block_idx,
                "block_num": task.core_num, "cluster": span.cluster_id, "core": core} | _counter_args(span)
        yield _slice(name, "kernel", _cluster_pid(span.cluster_id), core_track(span), span.start_ns, span.end_ns, args)


def _counter_args(span: Any) -> dict[str, Any]:
    """The kernel's modelled cycles and the busy cycles of each pipe it used."""
    counters = span.counters
    if not counters.measured:
        return {}
    busy = {f"{pipe}_cycles": cycles for pipe, cycles in counters.pipe_busy_cycles.items() if cycles}
    args = {"device_cycles": counters.cycles} | busy
    traffic = getattr(counters, "pipe", None) or {}
    if any(traffic.get(k) for k in ("tiles_pushed", "tiles_popped", "frees")):
        args |= {"pipe_tiles_pushed": traffic["tiles_pushed"], "pipe_tiles_popped": traffic["tiles_popped"],
                 "pipe_bytes_pushed": traffic["bytes_pushed"], "pipe_bytes_popped": traffic["bytes_popped"],
                 "pipe_wait_cycles": traffic["wait_cycles"], "pipe_host_wait_us": _us(traffic["wait_ns"])}
    return args


PIPE_WAIT_CATEGORY = "pipe_wait"


def pipe_wait_name(wait: dict[str, Any]) -> str:
    """The slice name of a cross-core pipe wait: ``wait TPOP_FROM_AIC (C2V lane 0)``."""
    return f"wait {wait['instruction']} ({wait['ring']} lane {wait['lane']})"


def _pipe_wait_slices(task: Any, ghz: float | None) -> Iterable[dict[str, Any]]:
    """A mixed kernel's waits on its cluster's cross-core pipe, each a slice inside its kernel's slice on the
    same track. Host time (`ghz` None): the waits the host's threads had. Device time: the cycles a transfer
    started later than its own core allowed, because its tile was not pushed yet (a pop) or its slot not freed
    yet (a push); placed on the kernel's device slice (stretched with it when it shared global memory), and
    omitted when zero."""
    for span in task.spans:
        counters = span.counters
        if not counters.measured:
            continue
        waits = getattr(counters, "pipe_waits", None) or []
        if not waits:
            continue
        pid, tid = _cluster_pid(span.cluster_id), core_track(span)
        if ghz is not None:
            stretch = (span.end_ns - span.start_ns) / (counters.cycles / ghz) if counters.cycles else 1.0
        for wait in waits:
            if ghz is None:
                begin, end = wait["start_ns"], wait["end_ns"]
            else:
                begin = span.start_ns + wait["device_start_cycles"] / ghz * stretch
                end = span.start_ns + wait["device_end_cycles"] / ghz * stretch
            begin, end = max(begin, span.start_ns), min(end, span.end_ns)
            if end <= begin:
                continue
            args = {"task_id": str(task.id), "block": span.block_idx, "instruction": wait["instruction"],
                    "ring": wait["ring"], "lane": wait["lane"],
                    "waits_for": "a free slot" if wait["producer"] else "a tile",
                    "wait_cycles": wait["device_end_cycles"] - wait["device_start_cycles"],
                    "host_wait_us": _us(wait["end_ns"] - wait["start_ns"])}
            yield _slice(pipe_wait_name(wait), PIPE_WAIT_CATEGORY, pid, tid, begin, end, args)


def _dispatch_slices(task: Any) -> Iterable[dict[str, Any]]:
    """Level 2: on the core, from taking the block off the ready queue to the kernel's start, and from its end
    to the runtime retiring the block."""
    for span in task.spans:
        pid, tid = _cluster_pid(span.cluster_id), core_track(span)
        args = {"task_id": str(task.id), "block": span.block_idx}
        yield _slice("dispatch", "runtime", pid, tid, span.dispatch_ns, span.start_ns, args)
        yield _slice("finish", "runtime", pid, tid, span.end_ns, span.retire_ns, args)


def _inside(begin_ns: int, end_ns: int, at_end: bool) -> float:
    """A time a nanosecond inside a slice: viewers bind a flow to the slice enclosing its timestamp, and a
    timestamp on the boundary may bind to the neighbouring slice or to none."""
    if end_ns - begin_ns < 2:
        return _us(begin_ns)
    return _us(end_ns - 1 if at_end else begin_ns + 1)


def _dependency_flows(tasks: Any) -> Iterable[dict[str, Any]]:
    """One arrow per dependency between tasks that ran kernels: from the predecessor's last-ending slice to the
    successor's first-starting one. Joins run nothing, so edges through them have no arrow."""
    by_id = {t.id: t for t in tasks}
    flow_id = 0
    for task in tasks:
        if not task.spans:
            continue
        first = min(task.spans, key=lambda s: s.start_ns)
        for pred_id in task.deps:
            pred = by_id.get(pred_id)
            if pred is None or not pred.spans:
                continue
            last = max(pred.spans, key=lambda s: s.end_ns)
            flow_id += 1
            common = {"name": "dependency", "cat": "dependency", "id": flow_id,
                      "args": {"pred": str(pred.id), "succ": str(task.id)}}
            yield common | {"ph": "s", "pid": _cluster_pid(last.cluster_id), "tid": core_track(last),
                            "ts": _inside(last.start_ns, last.end_ns, at_end=True)}
            yield common | {"ph": "f", "bp": "e", "pid": _cluster_pid(first.cluster_id), "tid": core_track(first),
                            "ts": _inside(first.start_ns, first.end_ns, at_end=False)}


def _scheduler_events(tasks: Any, pid: int) -> list[dict[str, Any]]:
    """Level 3: the ready queue's depth over time (a counter) and an instant when each task became ready."""
    events = [_metadata("process_name", pid, {"name": "scheduler"}),
              _metadata("process_sort_index", pid, {"sort_index": pid}),
              _metadata("thread_name", pid, {"name": "task ready"}, 1)]
    changes = []
    for task in tasks:
        if task.ready_ns < 0:
            continue
        events.append({"name": f"ready {task.kernel} (task {task.id})", "cat": "scheduler", "ph": "i", "s": "t",
                       "pid": pid, "tid": 1, "ts": _us(task.ready_ns), "args": {"task_id": str(task.id)}})
        dispatches = {s.block_idx: s.dispatch_ns for s in task.spans}
        changes.extend((task.ready_ns, +1) for _ in range(task.core_num))
        changes.extend((ns, -1) for ns in dispatches.values())
    depth = 0
    for ns, delta in sorted(changes):
        depth += delta
        events.append({"name": "ready blocks", "cat": "scheduler", "ph": "C", "pid": pid, "tid": 0,
                       "ts": _us(ns), "args": {"blocks": depth}})
    return events


def _gm_usage_events(usage: list[tuple[float, float]], pid: int) -> list[dict[str, Any]]:
    """Device time: the global-memory bandwidth the running kernels draw, as a counter."""
    events = [_metadata("process_name", pid, {"name": "global memory"}),
              _metadata("process_sort_index", pid, {"sort_index": -1})]
    for ns, gb_per_second in usage:
        events.append({"name": "GM bandwidth", "cat": "memory", "ph": "C", "pid": pid, "tid": 0, "ts": _us(ns),
                       "args": {"GB/s": round(gb_per_second, 3)}})
    return events


def _orchestrator_slices(tasks: Any, pid: int) -> list[dict[str, Any]]:
    """Level 4: one slice per submit of the orchestration, joins included."""
    events = [_metadata("process_name", pid, {"name": "orchestrator"}),
              _metadata("process_sort_index", pid, {"sort_index": pid}),
              _metadata("thread_name", pid, {"name": "submit"})]
    for task in tasks:
        events.append(_slice(f"submit {task.kernel} (task {task.id})", "orchestrator", pid, 0,
                             task.submit_begin_ns, task.submit_end_ns, {"task_id": str(task.id)}))
    return events


# ---------------------------------------------------------------- dep graph


def deps_document(trace: Any, *, entry: str = "", platform: str = "") -> dict[str, Any]:
    """deps.json: tasks with their arguments, the buffers they view, and every dependency edge."""
    return {
        "runtime": RUNTIME_NAME,
        "platform": platform,
        "entry": entry,
        "tasks": [_task_entry(t) for t in trace.tasks],
        "tensors": [{"tensor_id": str(t.tensor_id), "buffer_addr": hex(t.buffer_addr), "bytes": t.bytes,
                     "dtype": t.dtype.name, "shape": list(t.shape)} for t in trace.tensors],
        "edges": [edge for t in trace.tasks for edge in _edges_into(t)],
    }


def _task_entry(task: Any) -> dict[str, Any]:
    return {"task_id": str(task.id), "kernel": task.kernel, "kernels": list(task.kernels),
            "block_num": task.core_num, "args": [_arg_entry(a) for a in task.args]}


def _arg_entry(arg: Any) -> dict[str, Any]:
    if arg.tensor_id < 0:
        return {"index": arg.index, "direction": arg.direction, "value": str(arg.scalar)}
    return {"index": arg.index, "direction": arg.direction, "tensor_id": str(arg.tensor_id),
            "shape": list(arg.shape), "offsets": list(arg.offsets)}


def _edges_into(task: Any) -> Iterable[dict[str, Any]]:
    """One edge per dependency of `task`: "explicit" when its deps= named it (overlaps may also hold), else
    "overlap", with the argument pairs that may share memory."""
    explicit = set(task.explicit_deps)
    tensor_of = {a.index: a.tensor_id for a in task.args}
    for pred in task.deps:
        overlaps = [{"arg": o.arg, "pred_arg": o.pred_arg, "tensor_id": str(tensor_of[o.arg])}
                    for o in task.overlaps if o.pred == pred]
        yield {"pred": str(pred), "succ": str(task.id), "source": "explicit" if pred in explicit else "overlap",
               "overlaps": overlaps}


def deps_dot(deps: dict[str, Any]) -> str:
    """deps.json as a Graphviz digraph: a node per task (kernel and id), an edge per dependency labelled with
    its source (`dot -Tsvg deps.dot -o deps.svg`)."""
    lines = ["digraph deps {", "  rankdir=TB;", "  node [shape=box, fontname=\"monospace\"];"]
    for task in deps["tasks"]:
        blocks = f"\\n{task['block_num']} blocks" if task["block_num"] > 1 else ""
        label = _dot_string(f"{task['kernel']}\\ntask {task['task_id']}{blocks}")
        lines.append(f"  t{task['task_id']} [label={label}];")
    for edge in deps["edges"]:
        style = ", style=dashed" if edge["source"] == "explicit" else ""
        lines.append(f"  t{edge['pred']} -> t{edge['succ']} [label=\"{edge['source']}\"{style}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _dot_string(text: str) -> str:
    """A double-quoted DOT string; `\\n` sequences in `text` are kept as DOT line breaks."""
    return '"' + text.replace('"', '\\"') + '"'
