"""Swimlane viewer: a Chrome Trace Event JSON file as one standalone, offline HTML page.

    python -m pypto.tools.swimlane_view TRACE.json [-o OUT.html]

Reads a trace such as ``dfx_outputs/chip_swimlane.json`` (``RunConfig(enable_chip_swimlane=N)``)
and writes a page (default ``<stem>.html`` next to the input) that draws it on a canvas, with no
network access: a lane group per process, a lane per thread, complete (``X``), ``B``/``E`` and
async (``b``/``e``) slices, instants, counters and flow arrows, with zoom, pan and tooltips.
See docs/runtime-dfx.md.
"""

from __future__ import annotations

import argparse
import bisect
import html
import json
import math
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["SwimlaneError", "Lane", "Slice", "Instant", "CounterSeries", "FlowEnd", "Flow", "Timeline",
           "load", "parse", "summary", "render", "write", "main"]

# displayTimeUnit changes labels only: timestamps are microseconds whatever it says.
_UNIT_PER_US = {"ns": 1000.0, "us": 1.0, "ms": 0.001}
_UNIT_LABEL = {"ns": "ns", "us": "µs", "ms": "ms"}
_ASYNC_BEGIN = ("b", "S")  # nestable async, and its legacy form
_ASYNC_END = ("e", "F")
_FLOW_PHASES = ("s", "t", "f")
_LANE_KIND_ORDER = {"counter": 0, "async": 1, "thread": 2}
_TOUCH = 1e-9  # relative overlap below which two slices of a lane only touch (float rounding of ts + dur)


class SwimlaneError(Exception):
    """A problem with the input, reported as one line by the CLI."""


@dataclass
class Lane:
    """One row of the chart: a thread, a counter track or an async track of a process."""

    pid: Any
    kind: str  # "thread" | "counter" | "async"
    ident: Any  # the tid, or the counter / async track's name
    name: str
    sort_index: float | None = None
    depth: int = 1  # rows of nested slices


@dataclass
class Slice:
    lane: int
    name: str
    cat: str
    ts: float
    dur: float
    args: dict[str, Any]
    depth: int = 0
    unfinished: bool = False  # a begin without its end, drawn to the end of the trace

    @property
    def end(self) -> float:
        return self.ts + self.dur


@dataclass
class Instant:
    lane: int
    name: str
    cat: str
    ts: float
    scope: str  # "t" thread, "p" process, "g" global
    args: dict[str, Any]


@dataclass
class CounterSeries:
    lane: int
    name: str
    points: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class FlowEnd:
    """Where an arrow starts or ends: on the slice it binds to, or on its lane when no slice fits."""

    lane: int
    ts: float
    slice: int | None  # index into Timeline.slices


@dataclass
class Flow:
    name: str
    cat: str
    source: FlowEnd
    target: FlowEnd


@dataclass
class Timeline:
    """What the page draws, parsed from a trace's events."""

    lanes: list[Lane] = field(default_factory=list)
    process_names: dict[Any, str] = field(default_factory=dict)
    process_sort: dict[Any, float] = field(default_factory=dict)
    slices: list[Slice] = field(default_factory=list)
    instants: list[Instant] = field(default_factory=list)
    counters: list[CounterSeries] = field(default_factory=list)
    flows: list[Flow] = field(default_factory=list)
    display_unit: str = "us"
    event_count: int = 0
    skipped: Counter[str] = field(default_factory=Counter)  # why -> how many events were not drawn

    def span(self) -> tuple[float, float]:
        """The first and last time any drawn event covers (0, 0 for an empty trace)."""
        times = [t for s in self.slices for t in (s.ts, s.end)]
        times += [i.ts for i in self.instants]
        times += [t for c in self.counters for t, _ in c.points]
        return (min(times), max(times)) if times else (0.0, 0.0)

    def processes(self) -> list[Any]:
        """Pids that have lanes, by process_sort_index, then pid."""
        pids = {lane.pid for lane in self.lanes}
        return sorted(pids, key=lambda pid: (self.process_sort.get(pid, 0.0), _ident_key(pid)))

    def process_name(self, pid: Any) -> str:
        return self.process_names.get(pid, f"process {pid}")

    def lanes_of(self, pid: Any) -> list[int]:
        """A process's lanes in drawing order: counters, async tracks, then threads by sort index and tid."""
        mine = [i for i, lane in enumerate(self.lanes) if lane.pid == pid]
        return sorted(mine, key=lambda i: (_LANE_KIND_ORDER[self.lanes[i].kind], self.lanes[i].sort_index or 0.0,
                                           _ident_key(self.lanes[i].ident)))


def _ident_key(ident: Any) -> tuple[int, float, str]:
    """Orders pids and tids as numbers when they are numbers, else as text after the numbers."""
    if _is_number(ident):
        return (0, float(ident), "")
    return (1, 0.0, str(ident))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# ---------------------------------------------------------------- loading


def load(path: str | Path) -> Any:
    """The JSON document in ``path``; a missing or unreadable file or bad JSON is a SwimlaneError."""
    path = Path(path)
    if not path.is_file():
        raise SwimlaneError(f"no such file: {path}")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SwimlaneError(f"cannot read {path}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SwimlaneError(f"{path} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc


def _events_of(trace: Any) -> list[Any]:
    if isinstance(trace, list):
        return trace
    if not isinstance(trace, dict):
        raise SwimlaneError(f"a trace is a JSON object with \"traceEvents\" or a list of events, "
                            f"not a {type(trace).__name__}")
    if "traceEvents" not in trace:
        raise SwimlaneError("no \"traceEvents\" in the JSON object: not a Chrome Trace Event file")
    events = trace["traceEvents"]
    if not isinstance(events, list):
        raise SwimlaneError(f"\"traceEvents\" is a {type(events).__name__}, not a list of events")
    return events


# ---------------------------------------------------------------- parsing


class _Builder:
    """Turns events into a Timeline: lanes on demand, B/E stacks per thread, async pairs, flow groups."""

    def __init__(self, timeline: Timeline) -> None:
        self.timeline = timeline
        self.lane_index: dict[tuple[Any, str, Any], int] = {}
        self.open_b: dict[int, list[Slice]] = defaultdict(list)
        self.open_async: dict[tuple[Any, ...], list[Slice]] = defaultdict(list)
        self.series: dict[tuple[int, str], CounterSeries] = {}
        self.flow_events: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)

    def lane(self, pid: Any, kind: str, ident: Any) -> int:
        key = (pid, kind, ident)
        if key not in self.lane_index:
            self.lane_index[key] = len(self.timeline.lanes)
            name = f"thread {ident}" if kind == "thread" else str(ident)
            self.timeline.lanes.append(Lane(pid, kind, ident, name))
        return self.lane_index[key]

    def thread_lane(self, event: dict[str, Any]) -> int:
        return self.lane(event.get("pid", 0), "thread", event.get("tid", 0))

    def skip(self, why: str) -> None:
        self.timeline.skipped[why] += 1

    def add(self, event: Any) -> None:
        if not isinstance(event, dict):
            self.skip("not a JSON object")
            return
        ph = event.get("ph")
        if not all(isinstance(event.get(key, 0), (int, float, str)) for key in ("pid", "tid")):
            self.skip("pid or tid is not a number or string")
        elif ph == "M":
            self.metadata(event)
        elif not _is_number(event.get("ts")):
            self.skip("no numeric ts")
        elif ph == "X":
            dur = event.get("dur") if _is_number(event.get("dur")) else 0.0
            self.timeline.slices.append(self.slice_of(event, self.thread_lane(event), dur))
        elif ph == "B":
            self.open_b[self.thread_lane(event)].append(self.slice_of(event, self.thread_lane(event), None))
        elif ph == "E":
            self.close(self.open_b[self.thread_lane(event)], event)
        elif ph in _ASYNC_BEGIN:
            lane = self.lane(event.get("pid", 0), "async", str(event.get("name", "")))
            self.open_async[_async_key(event)].append(self.slice_of(event, lane, None))
        elif ph in _ASYNC_END:
            self.close(self.open_async[_async_key(event)], event)
        elif ph in ("i", "I", "n"):
            self.instant(event)
        elif ph == "C":
            self.counter(event)
        elif ph in _FLOW_PHASES:
            self.flow_events[(str(event.get("cat", "")), _event_id(event))].append(event)
        else:
            self.skip(f"phase {ph!r} is not drawn")

    @staticmethod
    def slice_of(event: dict[str, Any], lane: int, dur: float | None) -> Slice:
        """A slice from its begin (``dur`` None: not ended yet) or complete event."""
        return Slice(lane, str(event.get("name", "")), str(event.get("cat", "")), float(event["ts"]),
                     max(0.0, float(dur or 0.0)), dict(_args(event)), unfinished=dur is None)

    def close(self, stack: list[Slice], event: dict[str, Any]) -> None:
        """Ends the innermost open slice; the end event's args join the begin's, as Chrome's viewer does."""
        if not stack:
            self.skip("end without a begin")
            return
        piece = stack.pop()
        piece.dur = max(0.0, float(event["ts"]) - piece.ts)
        piece.args.update(_args(event))
        piece.unfinished = False
        self.timeline.slices.append(piece)

    def metadata(self, event: dict[str, Any]) -> None:
        pid, what, args = event.get("pid", 0), event.get("name"), _args(event)
        if what == "process_name" and "name" in args:
            self.timeline.process_names[pid] = str(args["name"])
        elif what == "process_sort_index" and _is_number(args.get("sort_index")):
            self.timeline.process_sort[pid] = float(args["sort_index"])
        elif what == "thread_name" and "name" in args:
            self.timeline.lanes[self.thread_lane(event)].name = str(args["name"])
        elif what == "thread_sort_index" and _is_number(args.get("sort_index")):
            self.timeline.lanes[self.thread_lane(event)].sort_index = float(args["sort_index"])
        else:
            self.skip(f"metadata {what!r} is not used")

    def instant(self, event: dict[str, Any]) -> None:
        name = str(event.get("name", ""))
        if event["ph"] == "n":  # an async instant belongs on its async track
            lane, scope = self.lane(event.get("pid", 0), "async", name), "t"
        else:
            lane, scope = self.thread_lane(event), event.get("s") if event.get("s") in ("g", "p") else "t"
        self.timeline.instants.append(Instant(lane, name, str(event.get("cat", "")), float(event["ts"]), scope,
                                              dict(_args(event))))

    def counter(self, event: dict[str, Any]) -> None:
        """One lane per counter (and id) of a process, one step line per series in args."""
        name = str(event.get("name", ""))
        track = name if event.get("id") is None else f"{name} {event['id']}"
        lane = self.lane(event.get("pid", 0), "counter", track)
        for series, value in _args(event).items():
            if not _is_number(value):
                self.skip("counter value is not a number")
                continue
            key = (lane, str(series))
            if key not in self.series:
                self.series[key] = CounterSeries(lane, str(series))
                self.timeline.counters.append(self.series[key])
            self.series[key].points.append((float(event["ts"]), float(value)))

    def finish_open_slices(self) -> None:
        """A begin without its end lasts to the end of the trace; the page says so in its tooltip."""
        still_open = [s for stack in (*self.open_b.values(), *self.open_async.values()) for s in stack]
        end = max([self.timeline.span()[1], *(s.ts for s in still_open)])
        for piece in still_open:
            piece.dur = end - piece.ts
        self.timeline.slices.extend(still_open)


def _args(event: dict[str, Any]) -> dict[str, Any]:
    args = event.get("args")
    return args if isinstance(args, dict) else {}


def _event_id(event: dict[str, Any]) -> Any:
    """A flow's or async event's id: ``id``, or ``id2``, whose ``local`` form is scoped to the process."""
    id2 = event.get("id2")
    if isinstance(id2, dict):
        if "local" in id2:
            return ("local", event.get("pid", 0), str(id2["local"]))
        return ("global", str(id2.get("global")))
    return str(event.get("id"))


def _async_key(event: dict[str, Any]) -> tuple[Any, ...]:
    return (event.get("pid", 0), str(event.get("cat", "")), _event_id(event), str(event.get("name", "")))


def _assign_depths(timeline: Timeline) -> None:
    """Stacks each lane's slices in rows: a slice takes the first row free at its start, so nested slices sit
    under their parent and no two slices of a row overlap. Sorts the slices by (lane, depth, ts).

    A slice that ends where the next begins (dfx.py's dispatch, kernel, finish) touches it: ``ts + dur`` in
    floating point may overshoot the next ``ts`` by a rounding error, which must not open a second row."""
    rows_end: dict[int, list[float]] = defaultdict(list)
    for piece in sorted(timeline.slices, key=lambda s: (s.lane, s.ts, -s.dur)):
        ends = rows_end[piece.lane]
        free_from = piece.ts + _TOUCH * max(1.0, abs(piece.ts))
        piece.depth = next((row for row, end in enumerate(ends) if end <= free_from), len(ends))
        if piece.depth == len(ends):
            ends.append(piece.end)
        ends[piece.depth] = max(ends[piece.depth], piece.end)
    for lane, ends in rows_end.items():
        timeline.lanes[lane].depth = max(1, len(ends))
    timeline.slices.sort(key=lambda s: (s.lane, s.depth, s.ts))


class _SliceIndex:
    """Per lane and row, the slices' start times, to bind flow events to slices by binary search."""

    def __init__(self, slices: list[Slice]) -> None:
        self.slices = slices
        self.rows: dict[int, list[tuple[list[float], list[int]]]] = defaultdict(list)
        for index, piece in enumerate(slices):
            rows = self.rows[piece.lane]
            while len(rows) <= piece.depth:
                rows.append(([], []))
            rows[piece.depth][0].append(piece.ts)
            rows[piece.depth][1].append(index)

    def enclosing(self, lane: int, ts: float) -> int | None:
        """The deepest slice of the lane that covers ``ts``."""
        for starts, indices in reversed(self.rows.get(lane, [])):
            at = bisect.bisect_right(starts, ts) - 1
            if at >= 0 and self.slices[indices[at]].end >= ts:
                return indices[at]
        return None

    def next_starting(self, lane: int, ts: float) -> int | None:
        """The slice of the lane that starts first at or after ``ts`` (the outermost on a tie)."""
        best: int | None = None
        for starts, indices in self.rows.get(lane, []):
            at = bisect.bisect_left(starts, ts)
            if at < len(starts) and (best is None or starts[at] < self.slices[best].ts):
                best = indices[at]
        return best


def _pair_flows(builder: _Builder) -> None:
    """Chains each (cat, id) group's s, t..., f events in time order into arrows, one per consecutive pair."""
    index = _SliceIndex(builder.timeline.slices)
    for (cat, _), events in builder.flow_events.items():
        previous: FlowEnd | None = None
        name, chain_arrows = "", 0
        for event in sorted(events, key=lambda e: float(e["ts"])):
            end = _bind(index, builder.thread_lane(event), event)
            if event["ph"] == "s":
                if previous is not None and chain_arrows == 0:
                    builder.skip("flow start without a step or end")
                previous, name, chain_arrows = end, str(event.get("name", "")), 0
            elif previous is None:
                builder.skip("flow step or end without a start")
            else:
                builder.timeline.flows.append(Flow(name, str(cat), previous, end))
                chain_arrows += 1
                previous = end if event["ph"] == "t" else None
        if previous is not None and chain_arrows == 0:
            builder.skip("flow start without a step or end")


def _bind(index: _SliceIndex, lane: int, event: dict[str, Any]) -> FlowEnd:
    """A flow start or step binds to the slice around it; a flow end too with ``bp: "e"``, else to the next
    slice that starts on its thread (Chrome's two binding points)."""
    ts = float(event["ts"])
    if event["ph"] == "f" and event.get("bp") != "e":
        target = index.next_starting(lane, ts)
        return FlowEnd(lane, index.slices[target].ts if target is not None else ts, target)
    return FlowEnd(lane, ts, index.enclosing(lane, ts))


def parse(trace: Any) -> Timeline:
    """The Timeline of a trace document: ``{"traceEvents": [...], ...}`` or a bare list of events."""
    events = _events_of(trace)
    unit = trace.get("displayTimeUnit", "us") if isinstance(trace, dict) else "us"
    timeline = Timeline(display_unit=unit if unit in _UNIT_PER_US else "us", event_count=len(events))
    builder = _Builder(timeline)
    for event in events:
        builder.add(event)
    builder.finish_open_slices()
    _assign_depths(timeline)
    _pair_flows(builder)
    return timeline


# ---------------------------------------------------------------- page data


class _Strings:
    """Slice and category names are few and repeated: the page stores each once."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self.index: dict[str, int] = {}

    def id(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.table)
            self.table.append(text)
        return self.index[text]


def _plain(value: Any) -> Any:
    """``value`` as strict JSON: Python's json reads NaN and Infinity, the browser's JSON.parse does not."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _format_time(us: float, unit: str) -> str:
    value = us * _UNIT_PER_US[unit]
    text = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.6g}"
    return f"{text} {_UNIT_LABEL[unit]}"


def summary(timeline: Timeline) -> str:
    """The one line above the chart: what was read, what is drawn, and what was left out and why."""
    start, end = timeline.span()
    processes = timeline.processes()
    line = (f"{timeline.event_count} events: {len(timeline.slices)} slices, {len(timeline.flows)} arrows, "
            f"{len(timeline.instants)} instants, {len(timeline.counters)} counter series in {len(processes)} "
            f"processes, {len(timeline.lanes)} lanes; span {_format_time(end - start, timeline.display_unit)}")
    if timeline.skipped:
        reasons = ", ".join(f"{why}: {n}" for why, n in sorted(timeline.skipped.items()))
        line += f"; not drawn: {reasons}"
    return line


def _payload(timeline: Timeline) -> dict[str, Any]:
    """The timeline in the compact form the page's script reads: lanes in drawing order (rows), times relative
    to the first event, names interned."""
    origin, end = timeline.span()
    strings = _Strings()
    groups, order = [], []
    for pid in timeline.processes():
        lanes = timeline.lanes_of(pid)
        groups.append({"name": timeline.process_name(pid), "first": len(order), "count": len(lanes)})
        order.extend(lanes)
    row_of = {lane: row for row, lane in enumerate(order)}
    args: list[Any] = []

    def args_id(values: dict[str, Any]) -> int:
        if not values:
            return -1
        args.append(_plain(values))
        return len(args) - 1

    def flow_end(end: FlowEnd) -> list[Any]:
        depth = timeline.slices[end.slice].depth if end.slice is not None else -1
        return [row_of[end.lane], depth, end.ts - origin]

    slices = [[row_of[s.lane], s.depth, s.ts - origin, s.dur, strings.id(s.name), strings.id(s.cat),
               args_id(s.args), int(s.unfinished)] for s in timeline.slices]
    instants = sorted(([row_of[i.lane], i.ts - origin, strings.id(i.name), strings.id(i.cat), i.scope,
                        args_id(i.args)] for i in timeline.instants), key=lambda i: (i[0], i[1]))
    counters = [{"row": row_of[c.lane], "name": c.name,
                 "points": [[t - origin, v] for t, v in sorted(c.points, key=lambda p: p[0])]}
                for c in timeline.counters]
    flows = [[*flow_end(f.source), *flow_end(f.target), strings.id(f.name),
              -1 if f.source.slice is None else f.source.slice, -1 if f.target.slice is None else f.target.slice]
             for f in timeline.flows]
    return {"unit": _UNIT_LABEL[timeline.display_unit], "perUs": _UNIT_PER_US[timeline.display_unit],
            "span": end - origin, "groups": groups,
            "lanes": [{"name": timeline.lanes[i].name, "kind": timeline.lanes[i].kind, "depth": timeline.lanes[i].depth}
                      for i in order],
            "strings": strings.table, "args": args, "slices": slices, "instants": instants,
            "counters": counters, "flows": flows}


# ---------------------------------------------------------------- HTML writer

_CSS = """
body{font:13px system-ui,sans-serif;margin:12px 16px;background:#fafafa;color:#222}
h1{font-size:18px;margin:0 0 4px}#summary{color:#444;margin-bottom:6px}
.controls{margin-bottom:6px}.controls button{min-width:30px;margin-right:4px}
.hint{color:#777;margin-left:10px;font-size:12px}
#wrap{border:1px solid #bbb;background:#fff;overflow:hidden}#chart{display:block}
#tip{position:fixed;display:none;pointer-events:none;max-width:560px;max-height:60vh;overflow:hidden;
background:#fffff4;border:1px solid #888;border-radius:4px;padding:5px 7px;font:12px monospace;white-space:pre-wrap;
box-shadow:0 2px 6px rgba(0,0,0,.2)}
"""

_JS = r"""
(() => {
'use strict';
const D = JSON.parse(document.getElementById('trace-data').textContent);
const canvas = document.getElementById('chart'), ctx = canvas.getContext('2d');
const wrap = document.getElementById('wrap'), tip = document.getElementById('tip');
const showFlows = document.getElementById('show-flows');
const LABEL_W = 200, AXIS_H = 24, ROW_H = 18, GROUP_H = 20, COUNTER_H = 34, PAD = 3;
const SERIES_COLORS = ['#2c7fb8', '#d95f0e', '#31a354', '#756bb1', '#e7298a'];
const S = D.strings, span = D.span > 0 ? D.span : 1;

// Vertical layout: a header band per process, then its lanes.
let contentH = 0;
for (const g of D.groups) {
  g.y = contentH; contentH += GROUP_H;
  for (let r = g.first; r < g.first + g.count; r++) {
    const lane = D.lanes[r];
    lane.y = contentH;
    lane.h = lane.kind === 'counter' ? COUNTER_H : lane.depth * ROW_H + 2 * PAD;
    contentH += lane.h;
  }
  g.h = contentH - g.y;
}
// rows[lane][depth]: slice indices by start; slices of a row never overlap, so their ends are sorted too.
const rows = D.lanes.map(l => Array.from({length: l.depth}, () => []));
D.slices.forEach((s, i) => rows[s[0]][s[1]].push(i));
const instantsOf = D.lanes.map(() => []);
D.instants.forEach((e, i) => instantsOf[e[0]].push(i));
const countersOf = D.lanes.map(() => []);
for (const c of D.counters) countersOf[c.row].push(c);
D.lanes.forEach((lane, r) => {
  lane.lo = 0; lane.hi = 0;
  for (const c of countersOf[r]) {
    for (const p of c.points) { lane.lo = Math.min(lane.lo, p[1]); lane.hi = Math.max(lane.hi, p[1]); }
  }
  if (lane.hi <= lane.lo) lane.hi = lane.lo + 1;
});

// Slices of one kernel share a colour: what follows " (" and the digits (task, block numbers) do not count.
const colorByKey = new Map();
function colorOf(name) {
  const key = name.replace(/\s*\(.*$/, '').replace(/\d+/g, '');
  let color = colorByKey.get(key);
  if (!color) {
    let h = 7;
    for (let i = 0; i < key.length; i++) h = (h * 31 + key.charCodeAt(i)) >>> 0;
    color = 'hsl(' + (h % 360) + ',55%,' + (58 + (h >>> 9) % 14) + '%)';
    colorByKey.set(key, color);
  }
  return color;
}
const sliceColor = D.slices.map(s => colorOf(S[s[4]]));

const view = {t0: 0, t1: span, top: 0};
const hover = {slice: -1};
let W = 0, H = 0;
const plotW = () => W - LABEL_W;
const xOf = t => LABEL_W + (t - view.t0) / (view.t1 - view.t0) * plotW();
const tOf = x => view.t0 + (x - LABEL_W) / plotW() * (view.t1 - view.t0);
const laneTop = r => AXIS_H + D.lanes[r].y - view.top;

function fit() { const margin = span * 0.01; view.t0 = -margin; view.t1 = span + margin; }
function clampTop() { view.top = Math.max(0, Math.min(view.top, contentH - (H - AXIS_H))); }
function resize() {
  W = Math.max(400, wrap.clientWidth);
  // Fill the window below the controls without making the page scroll: body margin and border stay inside.
  const room = window.innerHeight - canvas.getBoundingClientRect().top - window.scrollY - 16;
  H = Math.max(160, Math.min(AXIS_H + contentH + 1, room));
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
  canvas.style.width = W + 'px'; canvas.style.height = H + 'px';
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  clampTop();
}

// First index of a sorted list whose key is >= t.
function lowerBound(n, key, t) {
  let lo = 0, hi = n;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (key(mid) < t) lo = mid + 1; else hi = mid; }
  return lo;
}
const firstEndingAfter = (list, t) => lowerBound(list.length, k => D.slices[list[k]][2] + D.slices[list[k]][3], t);

function fitText(text, px) {
  if (px < 10) return '';
  const w = ctx.measureText(text).width;
  if (w <= px) return text;
  const n = Math.floor(text.length * px / w) - 1;
  return n > 0 ? text.slice(0, n) + '\u2026' : '';
}
function fmtTime(us) { return parseFloat((us * D.perUs).toPrecision(6)) + ' ' + D.unit; }

function drawSlices(r, visible) {
  let n = 0;
  rows[r].forEach((list, depth) => {
    const y = laneTop(r) + PAD + depth * ROW_H;
    let filledTo = -Infinity;  // slices under a pixel wide are painted once per pixel column
    for (let k = firstEndingAfter(list, view.t0); k < list.length; k++) {
      const i = list[k], s = D.slices[i];
      if (s[2] > view.t1) break;
      n++;
      if (!visible) continue;
      const x0 = xOf(s[2]), x1 = xOf(s[2] + s[3]), w = x1 - x0;
      ctx.fillStyle = sliceColor[i];
      if (w < 1) {
        if (x0 >= filledTo) { ctx.fillRect(x0, y, 1, ROW_H - 1); filledTo = x0 + 1; }
        continue;
      }
      ctx.fillRect(x0, y, w, ROW_H - 1);
      filledTo = x1;
      if (i === hover.slice) {
        ctx.strokeStyle = '#111'; ctx.lineWidth = 2; ctx.strokeRect(x0 + 1, y + 1, w - 2, ROW_H - 3);
      }
      const left = Math.max(x0, LABEL_W) + 3, label = fitText(S[s[4]], Math.min(x1, W) - 3 - left);
      if (label) { ctx.fillStyle = '#111'; ctx.fillText(label, left, y + ROW_H / 2); }
    }
  });
  return n;
}

function drawCounters(r) {
  const lane = D.lanes[r], top = laneTop(r);
  const yOf = v => top + lane.h - 3 - (v - lane.lo) / (lane.hi - lane.lo) * (lane.h - 8);
  countersOf[r].forEach((c, k) => {
    const pts = c.points;
    if (!pts.length) return;
    const color = SERIES_COLORS[k % SERIES_COLORS.length];
    let at = Math.max(0, lowerBound(pts.length, j => pts[j][0], view.t0) - 1);
    let x = xOf(pts[at][0]), y = yOf(pts[at][1]);
    ctx.beginPath(); ctx.moveTo(x, yOf(lane.lo)); ctx.lineTo(x, y);
    for (at++; at < pts.length && pts[at - 1][0] <= view.t1; at++) {
      x = xOf(pts[at][0]); ctx.lineTo(x, y); y = yOf(pts[at][1]); ctx.lineTo(x, y);
    }
    if (at >= pts.length) { x = xOf(span); ctx.lineTo(x, y); }  // a counter holds its last value
    ctx.lineTo(x, yOf(lane.lo)); ctx.closePath();
    ctx.globalAlpha = 0.25; ctx.fillStyle = color; ctx.fill();
    ctx.globalAlpha = 1; ctx.strokeStyle = color; ctx.lineWidth = 1; ctx.stroke();
  });
}

function drawInstant(x, top, bottom) {
  ctx.fillStyle = '#c0392b';
  ctx.fillRect(x - 0.5, top, 1, bottom - top);
  ctx.beginPath(); ctx.moveTo(x - 4, top); ctx.lineTo(x + 4, top); ctx.lineTo(x, top + 6); ctx.closePath(); ctx.fill();
}

function drawInstants(r) {
  const list = instantsOf[r], top = laneTop(r);
  for (let k = lowerBound(list.length, j => D.instants[list[j]][1], view.t0); k < list.length; k++) {
    const e = D.instants[list[k]];
    if (e[1] > view.t1) break;
    drawInstant(xOf(e[1]), top + 1, top + D.lanes[r].h - 1);
  }
}

// Process-wide and global instants mark the whole process group or the whole chart.
function drawScopedInstants() {
  ctx.save(); ctx.setLineDash([4, 3]); ctx.strokeStyle = 'rgba(192,57,43,.6)';
  for (const e of D.instants) {
    if (e[4] === 't' || e[1] < view.t0 || e[1] > view.t1) continue;
    const g = D.groups.find(gr => e[0] >= gr.first && e[0] < gr.first + gr.count);
    const top = e[4] === 'g' ? AXIS_H : AXIS_H + g.y - view.top, bottom = e[4] === 'g' ? H : top + g.h;
    ctx.beginPath(); ctx.moveTo(xOf(e[1]), top); ctx.lineTo(xOf(e[1]), bottom); ctx.stroke();
  }
  ctx.restore();
}

const flowY = (row, depth) => laneTop(row) + PAD + Math.max(0, depth) * ROW_H + ROW_H / 2;
function drawFlows() {
  const shown = D.flows.filter(f => {
    const sx = xOf(f[2]), tx = xOf(f[5]);
    return !((sx < LABEL_W && tx < LABEL_W) || (sx > W && tx > W));
  });
  // Many arrows in view are drawn fainter, so that the slices under them stay readable.
  const alpha = Math.min(0.6, Math.max(0.12, 0.6 * Math.sqrt(80 / Math.max(1, shown.length))));
  const hot = [];
  for (const f of shown) {
    if (hover.slice >= 0 && (f[7] === hover.slice || f[8] === hover.slice)) hot.push(f);
    else drawArrow(f, 'rgba(30,30,30,' + alpha + ')', 1);
  }
  for (const f of hot) drawArrow(f, '#e67e22', 2);
  return shown.length;
}
function drawArrow(f, color, width) {
  const sx = xOf(f[2]), sy = flowY(f[0], f[1]), tx = xOf(f[5]), ty = flowY(f[3], f[4]);
  const bend = Math.max(12, Math.abs(tx - sx) / 2);
  ctx.strokeStyle = color; ctx.fillStyle = color; ctx.lineWidth = width;
  ctx.beginPath(); ctx.moveTo(sx, sy); ctx.bezierCurveTo(sx + bend, sy, tx - bend, ty, tx, ty); ctx.stroke();
  ctx.beginPath(); ctx.moveTo(tx, ty); ctx.lineTo(tx - 7, ty - 3.5); ctx.lineTo(tx - 7, ty + 3.5); ctx.closePath();
  ctx.fill();
}

// About one label per 100 px, at 1, 2 or 5 times a power of ten of the display unit; returns microseconds.
function tickStep() {
  const target = (view.t1 - view.t0) * D.perUs / Math.max(1, plotW() / 100);
  const p = Math.pow(10, Math.floor(Math.log10(target))), m = target / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p / D.perUs;
}
function drawGrid(step) {
  ctx.fillStyle = '#e9e9e9';
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    ctx.fillRect(Math.round(xOf(t)), AXIS_H, 1, H - AXIS_H);
  }
}
function drawAxis(step) {
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, AXIS_H);
  ctx.fillStyle = '#333'; ctx.fillText('time (' + D.unit + ')', 6, AXIS_H / 2);
  const decimals = Math.max(0, -Math.floor(Math.log10(step * D.perUs) + 1e-9));
  for (let t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
    const x = Math.round(xOf(t)), label = (t * D.perUs).toFixed(decimals);
    if (x < LABEL_W) continue;
    ctx.fillRect(x, AXIS_H - 6, 1, 6);
    if (x + 3 + ctx.measureText(label).width <= W) ctx.fillText(label, x + 3, AXIS_H / 2 - 2);
  }
  ctx.fillStyle = '#999'; ctx.fillRect(0, AXIS_H - 1, W, 1);
}
function drawLabels() {
  ctx.save();
  ctx.beginPath(); ctx.rect(0, AXIS_H, LABEL_W, H - AXIS_H); ctx.clip();
  ctx.fillStyle = '#f3f4f6'; ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
  for (const g of D.groups) {
    const gy = AXIS_H + g.y - view.top;
    if (gy > H || gy + g.h < AXIS_H) continue;
    ctx.fillStyle = '#dfe4ec'; ctx.fillRect(0, gy, LABEL_W, GROUP_H);
    ctx.font = 'bold 12px system-ui, sans-serif'; ctx.fillStyle = '#123';
    ctx.fillText(fitText(g.name, LABEL_W - 10), 6, gy + GROUP_H / 2);
    ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#333';
    for (let r = g.first; r < g.first + g.count; r++) {
      const lane = D.lanes[r], top = laneTop(r);
      const max = lane.kind === 'counter' ? ' (max ' + parseFloat(lane.hi.toPrecision(6)) + ')' : '';
      const name = lane.name + max;
      ctx.fillText(fitText(name, LABEL_W - 24), 18, top + Math.min(lane.h, ROW_H + 2 * PAD) / 2);
      ctx.fillStyle = '#ddd'; ctx.fillRect(0, top + lane.h - 1, LABEL_W, 1); ctx.fillStyle = '#333';
    }
  }
  ctx.fillStyle = '#bbb'; ctx.fillRect(LABEL_W - 1, AXIS_H, 1, H - AXIS_H);
  ctx.restore();
}

// Where the view is among the lanes, when they do not all fit (drag or shift+wheel scrolls them).
function drawScrollbar() {
  const track = H - AXIS_H;
  if (contentH <= track) return;
  ctx.fillStyle = 'rgba(0,0,0,.25)';
  ctx.fillRect(W - 5, AXIS_H + view.top / contentH * track, 4, Math.max(12, track / contentH * track));
}

function draw() {
  ctx.clearRect(0, 0, W, H);
  ctx.font = '11px system-ui, sans-serif'; ctx.textBaseline = 'middle';
  const step = tickStep(), pw = plotW();
  ctx.save();
  ctx.beginPath(); ctx.rect(LABEL_W, AXIS_H, pw, H - AXIS_H); ctx.clip();
  const visible = r => laneTop(r) + D.lanes[r].h >= AXIS_H && laneTop(r) <= H;
  for (const g of D.groups) {
    ctx.fillStyle = '#eef1f5'; ctx.fillRect(LABEL_W, AXIS_H + g.y - view.top, pw, GROUP_H);
  }
  drawGrid(step);
  let slices = 0;
  D.lanes.forEach((lane, r) => {
    slices += drawSlices(r, visible(r));
    if (!visible(r)) return;
    drawCounters(r); drawInstants(r);
    ctx.fillStyle = '#ececec'; ctx.fillRect(LABEL_W, laneTop(r) + lane.h - 1, pw, 1);
  });
  drawScopedInstants();
  const flows = showFlows.checked ? drawFlows() : 0;
  ctx.restore();
  drawLabels(); drawAxis(step); drawScrollbar();
  document.body.dataset.slices = slices;
  document.body.dataset.flows = flows;
}
let pending = false;
function redraw() {
  if (pending) return;
  pending = true;
  requestAnimationFrame(() => { pending = false; draw(); });
}

function laneAt(cy) {
  const r = lowerBound(D.lanes.length, k => D.lanes[k].y + D.lanes[k].h, cy + 1e-9);
  return r < D.lanes.length && D.lanes[r].y <= cy ? r : -1;
}
function hitTest(x, y) {
  if (x < LABEL_W || y < AXIS_H) return null;
  const r = laneAt(y - AXIS_H + view.top);
  if (r < 0) return null;
  const t = tOf(x), tol = 3 * (view.t1 - view.t0) / plotW(), lane = D.lanes[r];
  if (lane.kind === 'counter') return {counter: r, t: t};
  const instants = instantsOf[r].filter(i => Math.abs(D.instants[i][1] - t) <= tol);
  if (instants.length) return {instants: instants};
  const depth = Math.floor((y - laneTop(r) - PAD) / ROW_H), list = rows[r][depth];
  if (!list) return null;
  const k = firstEndingAfter(list, t - tol);
  return k < list.length && D.slices[list[k]][2] <= t + tol ? {slice: list[k]} : null;
}
function argsText(id) { return id < 0 ? '' : '\nargs: ' + JSON.stringify(D.args[id], null, 1); }
function tipText(hit) {
  if (hit.slice !== undefined) {
    const s = D.slices[hit.slice];
    return S[s[4]] + '\ncategory: ' + (S[s[5]] || '-') + '\nstart: ' + fmtTime(s[2]) + '\nduration: ' + fmtTime(s[3])
      + (s[7] ? ' (no end event: drawn to the end of the trace)' : '') + argsText(s[6]);
  }
  if (hit.instants) {  // instants a few pixels apart are listed together
    return hit.instants.map(i => {
      const e = D.instants[i];
      return S[e[2]] + '\ncategory: ' + (S[e[3]] || '-') + '\ninstant at: ' + fmtTime(e[1]) + argsText(e[5]);
    }).join('\n\n');
  }
  const lines = countersOf[hit.counter].map(c => {
    const at = lowerBound(c.points.length, j => c.points[j][0], hit.t + 1e-12) - 1;
    return c.name + ': ' + (at >= 0 ? c.points[at][1] : '-');
  });
  return D.lanes[hit.counter].name + ' at ' + fmtTime(hit.t) + '\n' + lines.join('\n');
}
function showTip(hit, e) {
  tip.textContent = tipText(hit);
  tip.style.display = 'block';
  const left = e.clientX + 14 + tip.offsetWidth > window.innerWidth ? e.clientX - 14 - tip.offsetWidth : e.clientX + 14;
  tip.style.left = Math.max(0, left) + 'px';
  tip.style.top = Math.max(0, Math.min(e.clientY + 14, window.innerHeight - tip.offsetHeight - 4)) + 'px';
}
function setHover(slice) { if (hover.slice !== slice) { hover.slice = slice; redraw(); } }

function zoomAt(x, factor) {
  const t = tOf(Math.max(LABEL_W, x)), frac = (t - view.t0) / (view.t1 - view.t0);
  const range = Math.max(1e-4, Math.min((view.t1 - view.t0) * factor, span * 2));
  view.t0 = t - frac * range; view.t1 = view.t0 + range;
  redraw();
}
function panBy(px) { const dt = px * (view.t1 - view.t0) / plotW(); view.t0 += dt; view.t1 += dt; redraw(); }
const localX = e => e.clientX - canvas.getBoundingClientRect().left;
const localY = e => e.clientY - canvas.getBoundingClientRect().top;

let drag = null;
canvas.addEventListener('mousedown', e => {
  drag = {x: e.clientX, y: e.clientY, top: view.top};
  tip.style.display = 'none';
  canvas.style.cursor = 'grabbing';
});
window.addEventListener('mouseup', () => { drag = null; canvas.style.cursor = ''; });
window.addEventListener('mousemove', e => {
  if (!drag) return;
  panBy(-(e.clientX - drag.x));
  drag.x = e.clientX;
  view.top = drag.top - (e.clientY - drag.y); clampTop();
});
canvas.addEventListener('mousemove', e => {
  if (drag) return;
  const hit = hitTest(localX(e), localY(e));
  setHover(hit && hit.slice !== undefined ? hit.slice : -1);
  if (hit) showTip(hit, e); else tip.style.display = 'none';
});
canvas.addEventListener('mouseleave', () => { tip.style.display = 'none'; setHover(-1); });
canvas.addEventListener('dblclick', e => {
  const hit = hitTest(localX(e), localY(e));
  if (!hit || hit.slice === undefined) return;
  const s = D.slices[hit.slice], margin = Math.max(s[3] * 0.1, 1e-3);
  view.t0 = s[2] - margin; view.t1 = s[2] + s[3] + margin; redraw();
});
canvas.addEventListener('wheel', e => {
  e.preventDefault();
  if (e.shiftKey) { view.top += e.deltaY || e.deltaX; clampTop(); redraw(); }
  else if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) panBy(e.deltaX);
  else zoomAt(localX(e), Math.exp(e.deltaY * 0.002));
}, {passive: false});
document.addEventListener('keydown', e => {
  if (e.target instanceof HTMLInputElement) return;
  const middle = LABEL_W + plotW() / 2;
  const keys = {w: () => zoomAt(middle, 0.7), s: () => zoomAt(middle, 1 / 0.7), a: () => panBy(-plotW() / 8),
                d: () => panBy(plotW() / 8)};
  if (keys[e.key]) keys[e.key]();
});
document.getElementById('zoom-in').addEventListener('click', () => zoomAt(LABEL_W + plotW() / 2, 0.5));
document.getElementById('zoom-out').addEventListener('click', () => zoomAt(LABEL_W + plotW() / 2, 2));
document.getElementById('zoom-fit').addEventListener('click', () => { fit(); redraw(); });
showFlows.addEventListener('change', redraw);
window.addEventListener('resize', () => { resize(); redraw(); });

resize(); fit(); draw();
})();
"""


def _title_of(trace: Any, fallback: str) -> str:
    other = trace.get("otherData") if isinstance(trace, dict) else None
    entry = other.get("entry") if isinstance(other, dict) else None
    return f"{entry} ({fallback})" if entry and fallback else str(entry or fallback or "trace")


def render(trace: Any, title: str = "") -> str:
    """The standalone HTML page of a trace document (a dict with ``traceEvents``, or a bare list)."""
    timeline = parse(trace)
    heading = html.escape(f"Swimlane: {_title_of(trace, title)}")
    # In a script element only "</script" and "<!--" are special: escaping every "<" keeps the JSON intact.
    data = json.dumps(_payload(timeline), separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{heading}</title>", f"<style>{_CSS}</style></head><body>",
        f"<h1>{heading}</h1>", f'<div id="summary">{html.escape(summary(timeline))}</div>',
        '<div class="controls"><button id="zoom-in" title="zoom in (w)">+</button>'
        '<button id="zoom-out" title="zoom out (s)">&minus;</button>'
        '<button id="zoom-fit" title="show the whole trace">fit</button>'
        '<label><input type="checkbox" id="show-flows" checked> arrows</label>'
        '<span class="hint">wheel: zoom &middot; drag: pan &middot; shift+wheel: scroll lanes &middot; '
        "a/d: pan, w/s: zoom &middot; double-click a slice: zoom to it &middot; hover: details</span></div>",
        '<div id="wrap"><canvas id="chart"></canvas></div><div id="tip"></div>',
        f'<script type="application/json" id="trace-data">{data}</script>',
        f"<script>{_JS}</script></body></html>",
    ]) + "\n"


def write(path_in: str | Path, path_out: str | Path | None = None) -> Path:
    """Renders the trace in ``path_in`` to ``path_out`` (default ``<stem>.html`` beside it); returns the page's path."""
    path_in = Path(path_in)
    trace = load(path_in)
    try:
        page = render(trace, title=path_in.name)
    except SwimlaneError as exc:
        raise SwimlaneError(f"{path_in}: {exc}") from exc
    path_out = Path(path_out) if path_out is not None else path_in.with_suffix(".html")
    if path_out.resolve() == path_in.resolve():
        raise SwimlaneError(f"the page would overwrite the trace {path_in}; name another file with -o")
    path_out.write_text(page, encoding="utf-8")
    return path_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pypto.tools.swimlane_view",
                                     description="Draw a Chrome Trace Event JSON file (e.g. dfx_outputs/"
                                                 "chip_swimlane.json) as a standalone HTML page that works offline.")
    parser.add_argument("trace", help="the trace JSON file")
    parser.add_argument("-o", "--out", help="output HTML (default: <stem>.html next to the trace)")
    args = parser.parse_args(argv)
    try:
        path = write(args.trace, args.out)
    except SwimlaneError as exc:
        print(f"swimlane_view: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"swimlane_view: error: cannot write {exc.filename or args.out}: {exc.strerror or exc}",
              file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
