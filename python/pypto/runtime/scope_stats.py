"""Scope statistics of a traced run: ``dfx_outputs/scope_stats/``.

With ``RunConfig(enable_scope_stats=True)`` the runtime records, for every
scope the orchestration opens (``pl.parallel`` loops, auto and manual
scopes), what its tasks asked of the runtime. On the device those figures
must fit the rings the scope's tasks live in (ring = scope depth, 0-3):
task slots (``ring_task_window``), heap for the tensors the orchestration
creates (``ring_heap``) and dependency-pool entries (``ring_dep_pool``).

* ``scope_stats.jsonl``: NDJSON. Line 1 is the metadata: the entry, the
  platform, and per ring its configured ``task_window_max``, ``heap_max`` and
  ``dep_pool_max`` (null where RunConfig leaves the ring unbounded) with the
  peaks the run's scopes reached on it. Then one line per scope, in the order
  they opened: ids, mode, depth, ring, begin/end (us since the run's first
  traced event), iterations, tasks, ``peak_task_slots``, ``heap_bytes``,
  ``dep_pool_entries``, ``tensormap_entries`` and ``over``: the ring limits
  it exceeds.
* ``scope_stats.html``: one timeline per ring, a bar per scope; hover a bar
  for its figures. ``python -m pypto.runtime.scope_stats FILE.jsonl [-o
  OUT.html]`` draws it again from the NDJSON file.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SCOPE_STATS_DIR = "scope_stats"
STATS_FILE = "scope_stats.jsonl"
PLOT_FILE = "scope_stats.html"
RINGS = 4
# A scope's figure, the RunConfig option limiting it, and the metadata name of that limit.
LIMITS = (("peak_task_slots", "ring_task_window", "task_window_max"),
          ("heap_bytes", "ring_heap", "heap_max"),
          ("dep_pool_entries", "ring_dep_pool", "dep_pool_max"))


def ring_of(depth: int) -> int:
    return min(depth, RINGS - 1)


def ring_limits(config: Any) -> list[dict[str, int | None]]:
    """Per ring, the configured maximum of each figure: a RunConfig ring option is one value for every ring or
    a list by ring; None or 0 leaves the ring unbounded."""
    rings: list[dict[str, int | None]] = [{} for _ in range(RINGS)]
    for _, option, name in LIMITS:
        value = getattr(config, option, None)
        per_ring = list(value) if isinstance(value, (list, tuple)) else [value] * RINGS
        per_ring += [None] * (RINGS - len(per_ring))
        for ring in range(RINGS):
            rings[ring][name] = per_ring[ring] or None
    return rings


def scope_lines(trace: Any, rings: list[dict[str, int | None]]) -> list[dict[str, Any]]:
    lines = []
    for scope in trace.scopes:
        ring = ring_of(scope.depth)
        line = {"scope_id": str(scope.scope_id), "parent_id": None if scope.parent_id < 0 else str(scope.parent_id),
                "mode": scope.mode, "depth": scope.depth, "ring": ring, "begin_us": scope.begin_ns / 1000.0,
                "end_us": scope.end_ns / 1000.0, "iterations": scope.iterations, "tasks": scope.tasks,
                "peak_task_slots": scope.peak_tasks_in_flight, "heap_bytes": scope.heap_bytes,
                "dep_pool_entries": scope.dep_edges, "tensormap_entries": scope.peak_tensormap_entries}
        line["over"] = [name for figure, _, name in LIMITS
                        if rings[ring][name] is not None and line[figure] > rings[ring][name]]
        lines.append(line)
    return lines


def metadata(lines: list[dict[str, Any]], rings: list[dict[str, int | None]], *, entry: str,
             platform: str) -> dict[str, Any]:
    described = []
    for ring, limits in enumerate(rings):
        on_ring = [line for line in lines if line["ring"] == ring]
        peaks = {f"{figure}_peak": max((line[figure] for line in on_ring), default=0) for figure, _, _ in LIMITS}
        described.append({"ring": ring, **limits, **peaks, "scopes": len(on_ring)})
    return {"kind": "metadata", "runtime": "pypto_sim", "entry": entry, "platform": platform,
            "scopes": len(lines), "rings": described}


def write(trace: Any, dfx_dir: Path, config: Any, *, entry: str, platform: str) -> list[Path]:
    """scope_stats.jsonl and scope_stats.html under `dfx_dir`/scope_stats; returns both paths."""
    folder = Path(dfx_dir) / SCOPE_STATS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    rings = ring_limits(config)
    lines = scope_lines(trace, rings)
    head = metadata(lines, rings, entry=entry, platform=platform)
    stats = folder / STATS_FILE
    stats.write_text("".join(json.dumps(line) + "\n" for line in [head, *lines]))
    plot = folder / PLOT_FILE
    plot.write_text(render(head, lines))
    return [stats, plot]


def read(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The metadata and the scope lines of a scope_stats.jsonl file."""
    records = [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]
    if not records or records[0].get("kind") != "metadata":
        raise ValueError(f"{path}: not a scope_stats.jsonl file (its first line must be the metadata)")
    return records[0], records[1:]


# ------------------------------------------------------------------ the plot

LANE_HEIGHT = 22
LABEL_WIDTH = 90
PLOT_WIDTH = 1000
MODE_COLOURS = {"parallel": "#4e79a7", "auto": "#59a14f", "manual": "#f28e2b"}


def render(head: dict[str, Any], lines: list[dict[str, Any]]) -> str:
    """A standalone page: one timeline per ring, a bar per scope, stacked where scopes of a ring overlap."""
    end = max((line["end_us"] for line in lines), default=0.0) or 1.0
    sections = [_ring_section(ring, [line for line in lines if line["ring"] == ring["ring"]], end)
                for ring in head["rings"]]
    title = html.escape(f"Scope statistics: {head['entry']} on {head['platform']}")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>"
            "<style>body{font:13px sans-serif;margin:16px}h2{font-size:14px;margin:14px 0 4px}"
            "table{border-collapse:collapse;margin-bottom:6px}td,th{padding:2px 8px;border:1px solid #ccc}"
            ".over{color:#c00;font-weight:bold}svg text{font:11px sans-serif}</style></head><body>"
            f"<h1 style=\"font-size:16px\">{title}</h1><p>{head['scopes']} scopes; times in us since the run's first "
            "traced event; hover a bar for its figures. Colours: "
            + ", ".join(f"<span style=\"color:{c}\">{m}</span>" for m, c in MODE_COLOURS.items())
            + ".</p>" + "".join(sections) + "</body></html>\n")


def _ring_section(ring: dict[str, Any], lines: list[dict[str, Any]], end_us: float) -> str:
    rows = _stack(lines)
    height = max(1, len(rows)) * LANE_HEIGHT + 20
    bars = [_bar(line, row, end_us) for row, members in enumerate(rows) for line in members]
    axis = "".join(f"<text x=\"{LABEL_WIDTH + PLOT_WIDTH * i / 4:.1f}\" y=\"{height - 4}\">{end_us * i / 4:.1f}</text>"
                   for i in range(5))
    return (f"<h2>Ring {ring['ring']}</h2>{_limits_table(ring)}"
            f"<svg width=\"{LABEL_WIDTH + PLOT_WIDTH + 40}\" height=\"{height}\" data-ring=\"{ring['ring']}\">"
            f"<text x=\"0\" y=\"14\">{len(lines)} scopes</text>{''.join(bars)}{axis}</svg>")


def _limits_table(ring: dict[str, Any]) -> str:
    cells = []
    for figure, option, name in LIMITS:
        limit, peak = ring[name], ring[f"{figure}_peak"]
        over = limit is not None and peak > limit
        shown = "unbounded" if limit is None else str(limit)
        marked = ' class="over"' if over else ""
        cells.append(f"<td{marked}>{figure}: peak {peak} / {shown} ({option})</td>")
    return f"<table><tr>{''.join(cells)}</tr></table>"


def _stack(lines: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Rows of scopes that do not overlap in time: each scope on the first row free when it begins."""
    rows: list[list[dict[str, Any]]] = []
    for line in sorted(lines, key=lambda item: item["begin_us"]):
        for row in rows:
            if row[-1]["end_us"] <= line["begin_us"]:
                row.append(line)
                break
        else:
            rows.append([line])
    return rows


def _bar(line: dict[str, Any], row: int, end_us: float) -> str:
    x = LABEL_WIDTH + PLOT_WIDTH * line["begin_us"] / end_us
    width = max(1.0, PLOT_WIDTH * (line["end_us"] - line["begin_us"]) / end_us)
    y = 20 + row * LANE_HEIGHT
    colour = MODE_COLOURS.get(line["mode"], "#999")
    stroke = " stroke=\"#c00\" stroke-width=\"2\"" if line["over"] else ""
    figures = "\n".join(f"{key}: {line[key]}" for key in ("scope_id", "mode", "depth", "iterations", "tasks",
                                                         "peak_task_slots", "heap_bytes", "dep_pool_entries",
                                                         "tensormap_entries", "begin_us", "end_us", "over"))
    return (f"<g class=\"scope\"><title>{html.escape(figures)}</title>"
            f"<rect x=\"{x:.1f}\" y=\"{y}\" width=\"{width:.1f}\" height=\"{LANE_HEIGHT - 4}\" "
            f"fill=\"{colour}\"{stroke}/>"
            f"<text x=\"{x + 3:.1f}\" y=\"{y + 13}\" fill=\"#fff\">{html.escape(line['mode'])} "
            f"{line['tasks']}</text></g>")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pypto.runtime.scope_stats",
                                     description="Draw scope_stats.jsonl as an HTML page, one timeline per ring.")
    parser.add_argument("stats", type=Path, help="a scope_stats.jsonl file")
    parser.add_argument("-o", "--output", type=Path, help="the page to write (default: next to the input)")
    args = parser.parse_args(argv)
    try:
        head, lines = read(args.stats)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    out = args.output or args.stats.with_name(PLOT_FILE)
    out.write_text(render(head, lines))
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
