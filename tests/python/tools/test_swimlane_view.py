"""pypto.tools.swimlane_view: parsing Chrome trace events into lanes, slices, arrows; the CLI's errors; and the page
of a real traced run (RunConfig(enable_chip_swimlane=2)) in headless chromium."""

import html
import json
import re
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import torch

from pypto.runtime import RunConfig
from pypto.tools import swimlane_view
from pypto.tools.swimlane_view import SwimlaneError, parse
from dfx_programs import rows_then_add

CHROMIUM = shutil.which("chromium")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Debian chromium not installed")


def _meta(name, pid, args, tid=0):
    return {"ph": "M", "name": name, "pid": pid, "tid": tid, "args": args}


def _x(name, pid, tid, ts, dur, **extra):
    return {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, **extra}


def _by_name(timeline):
    return {s.name: s for s in timeline.slices}


# ---------------------------------------------------------------- parsing


def test_processes_and_threads_are_named_and_ordered_by_sort_index():
    timeline = parse({"traceEvents": [
        _meta("process_name", 7, {"name": "scheduler"}), _meta("process_sort_index", 7, {"sort_index": -1}),
        _meta("process_name", 1, {"name": "cluster 0"}), _meta("process_sort_index", 1, {"sort_index": 1}),
        _meta("thread_name", 1, {"name": "AIV0"}, tid=1), _meta("thread_sort_index", 1, {"sort_index": 2}, tid=1),
        _meta("thread_name", 1, {"name": "AIC"}, tid=0), _meta("thread_sort_index", 1, {"sort_index": 1}, tid=0),
        _x("k", 1, 1, 0, 1), _x("late", 3, 5, 2, 1),  # pid 3: no names, no sort index
        _x("tick", 7, 0, 0, 1), _meta("process_name", 9, {"name": "no lanes"}),
    ]})
    assert timeline.processes() == [7, 3, 1]  # sort index -1, then 0 (unset), then 1; pid 9 has nothing to draw
    assert [timeline.process_name(pid) for pid in timeline.processes()] == ["scheduler", "process 3", "cluster 0"]
    assert [timeline.lanes[i].name for i in timeline.lanes_of(1)] == ["AIC", "AIV0"]  # a named idle core has a lane
    assert [timeline.lanes[i].name for i in timeline.lanes_of(3)] == ["thread 5"]
    assert _by_name(timeline)["k"].lane == timeline.lanes_of(1)[1]


def test_begin_end_pairs_nest_close_innermost_first_and_merge_args():
    timeline = parse([
        {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0, "args": {"a": 1}},
        {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 5},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 10, "args": {"b": 2}},
        {"ph": "E", "pid": 1, "tid": 1, "ts": 11},  # nothing open: not drawn
        {"ph": "B", "name": "other thread", "pid": 1, "tid": 2, "ts": 3},
        {"ph": "E", "pid": 1, "tid": 2, "ts": 4},
        {"ph": "B", "name": "never ends", "pid": 1, "tid": 3, "ts": 6},
        _x("after", 1, 1, 12, 3),
    ])
    slices = _by_name(timeline)
    assert set(slices) == {"outer", "inner", "other thread", "never ends", "after"}
    assert (slices["outer"].ts, slices["outer"].dur, slices["outer"].depth) == (0, 10, 0)
    assert (slices["inner"].ts, slices["inner"].dur, slices["inner"].depth) == (2, 3, 1)
    assert slices["outer"].args == {"a": 1, "b": 2}
    assert (slices["other thread"].dur, slices["other thread"].depth) == (1, 0)
    assert slices["never ends"].unfinished and slices["never ends"].end == 15  # drawn to the trace's end
    assert slices["after"].depth == 0 and timeline.lanes[slices["after"].lane].depth == 2
    assert timeline.skipped == {"end without a begin": 1}


def test_overlapping_complete_slices_take_separate_rows_touching_ones_share_one():
    timeline = parse([_x("a", 1, 0, 0, 10), _x("b", 1, 0, 5, 10), _x("c", 1, 0, 10, 2), _x("d", 1, 0, 16, 1),
                      # as dfx.py writes a dispatch and its kernel: 216.393 + 2.735 is 219.12800000000001
                      _x("dispatch", 1, 1, 216.393, 2.735), _x("kernel", 1, 1, 219.128, 470.9)])
    assert {s.name: s.depth for s in timeline.slices} == {"a": 0, "b": 1, "c": 0, "d": 0, "dispatch": 0, "kernel": 0}


def test_flows_pair_by_cat_and_id_and_bind_to_slices():
    timeline = parse([
        _x("pred", 1, 0, 0, 10), _x("pred child", 1, 0, 2, 4), _x("succ", 1, 1, 20, 5), _x("later", 1, 1, 30, 5),
        # bp "e": the enclosing slice; the start binds to the deepest slice around it
        {"ph": "s", "id": 1, "cat": "dep", "name": "dependency", "pid": 1, "tid": 0, "ts": 3},
        {"ph": "f", "id": 1, "cat": "dep", "bp": "e", "pid": 1, "tid": 1, "ts": 21},
        # same id, other cat: its own flow; without bp the end binds to the next slice that starts
        {"ph": "s", "id": 1, "cat": "other", "pid": 1, "tid": 0, "ts": 9},
        {"ph": "f", "id": 1, "cat": "other", "pid": 1, "tid": 1, "ts": 26},
        # a chain s -> t -> f is two arrows
        {"ph": "s", "id": 2, "cat": "dep", "pid": 1, "tid": 0, "ts": 1},
        {"ph": "t", "id": 2, "cat": "dep", "pid": 1, "tid": 1, "ts": 22},
        {"ph": "f", "id": 2, "cat": "dep", "bp": "e", "pid": 1, "tid": 1, "ts": 31},
        # orphans are counted, not drawn
        {"ph": "f", "id": 3, "cat": "dep", "pid": 1, "tid": 1, "ts": 31},
        {"ph": "s", "id": 4, "cat": "dep", "pid": 1, "tid": 1, "ts": 31},
        # id2 local ids are scoped to their process
        {"ph": "s", "id2": {"local": "9"}, "cat": "dep", "pid": 1, "tid": 0, "ts": 1},
        {"ph": "f", "id2": {"local": "9"}, "cat": "dep", "bp": "e", "pid": 2, "tid": 0, "ts": 1},
    ])
    names = [s.name for s in timeline.slices]

    def ends(flow):
        return (names[flow.source.slice] if flow.source.slice is not None else None, flow.source.ts,
                names[flow.target.slice] if flow.target.slice is not None else None, flow.target.ts)

    assert sorted(ends(f) for f in timeline.flows) == sorted([
        ("pred child", 3, "succ", 21),
        ("pred", 9, "later", 30),  # bound to the next slice: drawn at its start
        ("pred", 1, "succ", 22), ("succ", 22, "later", 31),
    ])
    assert [f.name for f in timeline.flows if f.cat == "dep"][0] == "dependency"
    assert timeline.skipped == {"flow step or end without a start": 2, "flow start without a step or end": 2}


def test_counters_instants_and_async_slices():
    timeline = parse({"displayTimeUnit": "ms", "traceEvents": [
        {"ph": "C", "name": "queue", "pid": 5, "ts": 0, "args": {"ready": 2, "running": 1}},
        {"ph": "C", "name": "queue", "pid": 5, "ts": 4, "args": {"ready": 0, "running": "x"}},
        {"ph": "i", "name": "tick", "pid": 5, "tid": 1, "ts": 1, "s": "p"},
        {"ph": "I", "name": "old style", "pid": 5, "tid": 1, "ts": 2},
        {"ph": "b", "name": "request", "cat": "io", "id": "0x1", "pid": 5, "ts": 1},
        {"ph": "n", "name": "request", "cat": "io", "id": "0x1", "pid": 5, "ts": 2},
        {"ph": "e", "name": "request", "cat": "io", "id": "0x1", "pid": 5, "ts": 6},
        {"ph": "O", "name": "snapshot", "pid": 5, "ts": 2, "id": 1},
        {"ph": "X", "name": "no ts", "pid": 5, "tid": 1},
    ]})
    assert timeline.display_unit == "ms"
    assert {c.name: c.points for c in timeline.counters} == {"ready": [(0, 2), (4, 0)], "running": [(0, 1)]}
    assert [(i.name, i.scope) for i in timeline.instants] == [("tick", "p"), ("old style", "t"), ("request", "t")]
    (request,) = timeline.slices
    assert (request.name, request.ts, request.dur) == ("request", 1, 5)
    assert [timeline.lanes[i].kind for i in timeline.lanes_of(5)] == ["counter", "async", "thread"]
    assert timeline.skipped == {"counter value is not a number": 1, "phase 'O' is not drawn": 1, "no numeric ts": 1}
    assert "span 0.006 ms" in swimlane_view.summary(timeline)


@pytest.mark.parametrize("trace, message", [
    ({"events": []}, "no \"traceEvents\""),
    ({"traceEvents": {"ph": "X"}}, "\"traceEvents\" is a dict, not a list"),
    ("text", "not a str"),
])
def test_malformed_documents_are_errors(trace, message):
    with pytest.raises(SwimlaneError, match=re.escape(message)):
        parse(trace)


def test_events_that_cannot_be_placed_are_counted_not_fatal():
    timeline = parse([1, {"ph": "X", "pid": [1], "tid": 0, "ts": 0, "dur": 1}, {"ph": "X", "pid": 1, "ts": "7"},
                      _x("kept", 1, 0, 0, 1, args="not a dict")])
    assert [(s.name, s.args) for s in timeline.slices] == [("kept", {})]
    assert timeline.skipped == {"not a JSON object": 1, "pid or tid is not a number or string": 1, "no numeric ts": 1}
    assert "not drawn: " in swimlane_view.summary(timeline)


def _page_data(page):
    """The page's embedded data, read as strict JSON the way the browser's JSON.parse does."""
    (data,) = re.findall(r'<script type="application/json" id="trace-data">(.*?)</script>', page, flags=re.S)

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(data, parse_constant=refuse)


def test_page_data_survives_script_tags_and_nan():
    page = swimlane_view.render([_x("a </script><b>", 1, 0, 0, 1, args={"v": float("nan"), "w": "<!--"})])
    assert page.count("</script>") == 2  # the data's and the code's: the name did not end one early
    data = _page_data(page)
    assert data["strings"][data["slices"][0][4]] == "a </script><b>"
    assert data["args"][0] == {"v": "nan", "w": "<!--"}
    assert "http://" not in page and "https://" not in page  # standalone: nothing to fetch


# ---------------------------------------------------------------- CLI


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "pypto.tools.swimlane_view", *map(str, args)],
                          capture_output=True, text=True)


def _assert_one_line_error(result, *fragments):
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr


def test_cli_errors_name_the_file_and_the_problem(tmp_path):
    _assert_one_line_error(_cli(tmp_path / "missing.json"), "no such file", "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"traceEvents": [')
    _assert_one_line_error(_cli(broken), str(broken), "is not JSON", "line 1")
    other = tmp_path / "other.json"
    other.write_text('{"tasks": []}')
    _assert_one_line_error(_cli(other), str(other), "no \"traceEvents\"")
    trace = tmp_path / "trace.html"
    trace.write_text("[]")
    _assert_one_line_error(_cli(trace), "would overwrite the trace")
    _assert_one_line_error(_cli(trace, "-o", tmp_path / "no such folder" / "x.html"), "cannot write", "no such folder")


def test_cli_writes_next_to_the_input_or_to_out(tmp_path):
    trace = tmp_path / "run.json"
    trace.write_text(json.dumps([_x("a", 1, 0, 0, 1)]))
    result = _cli(trace)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == tmp_path / "run.html" and (tmp_path / "run.html").is_file()
    assert swimlane_view.write(trace, tmp_path / "x.html") == tmp_path / "x.html"
    assert _page_data((tmp_path / "x.html").read_text())["slices"]


# ---------------------------------------------------------------- a real traced run


@pytest.fixture(scope="module")
def dfx_dir(tmp_path_factory):
    """dfx_outputs/ of a run with five tasks: four exp_rows, then add_all after all of them."""
    out_dir = tmp_path_factory.mktemp("swimlane_run")
    config = RunConfig(enable_chip_swimlane=2, enable_dep_gen=True, save_kernels_dir=str(out_dir))
    x, y, z = torch.randn(64, 64), torch.zeros(64, 64), torch.zeros(64, 64)
    rows_then_add(x, y, z, config=config)
    folder = rows_then_add.compile(x, y, z, config=config).dfx_dir
    rows_then_add.clear_cache()
    return folder


# The host-time swimlane and the same run in simulated device time: one format, one viewer.
@pytest.fixture(params=["chip_swimlane.json", "chip_swimlane_device.json"])
def real_trace(dfx_dir, request):
    return dfx_dir / request.param


def _flow_pairs(events):
    """(cat, id) keys with both a start and an end: counted straight from the JSON, not by the viewer."""
    starts = {(e.get("cat"), e["id"]) for e in events if e["ph"] == "s"}
    return len(starts & {(e.get("cat"), e["id"]) for e in events if e["ph"] == "f"})


def test_real_trace_parses_to_its_events(real_trace):
    events = json.loads(real_trace.read_text())["traceEvents"]
    timeline = parse(json.loads(real_trace.read_text()))
    kernels = [s for s in timeline.slices if s.cat == "kernel"]
    assert len(kernels) == 5 and len(timeline.slices) == sum(e["ph"] == "X" for e in events)
    assert len(timeline.flows) == _flow_pairs(events) == 4
    clusters = [pid for pid in timeline.processes() if timeline.process_name(pid).startswith("cluster ")]
    assert clusters and all(names == ["AIC", "AIV0", "AIV1"] for names in
                            ([timeline.lanes[i].name for i in timeline.lanes_of(pid)] for pid in clusters))
    others = {timeline.process_name(pid) for pid in timeline.processes()} - {timeline.process_name(p) for p in clusters}
    assert others <= {"global memory"}  # the device trace's bandwidth counter
    by_index = timeline.slices
    for flow in timeline.flows:  # each arrow runs from an exp_rows slice to the add_all slice
        assert by_index[flow.source.slice].args["kernel"].startswith("exp_rows")
        assert by_index[flow.target.slice].args["kernel"].startswith("add_all")
    assert not timeline.skipped


def _chromium(page, *flags):
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
                           "--v=0", *flags, page.as_uri()], capture_output=True, text=True, timeout=120)


def _console(result):
    return [line for line in result.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def _body_counts(dom):
    body = re.search(r"<body([^>]*)>", dom).group(1)
    return {key: int(value) for key, value in re.findall(r'data-(slices|flows)="(\d+)"', body)}


def _png_colors(path):
    """The distinct RGB(A) pixels of an 8-bit PNG without palette, decoded here (no imaging library needed)."""
    data = path.read_bytes()
    chunks, at = {}, 8
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunks.setdefault(kind, []).append(data[at + 8:at + 8 + length])
        at += 12 + length
    width, height, depth, color_type = struct.unpack(">IIBB", chunks[b"IHDR"][0][:10])
    assert depth == 8 and color_type in (2, 6)
    bpp = 3 if color_type == 2 else 4
    raw, stride = zlib.decompress(b"".join(chunks[b"IDAT"])), width * bpp
    previous, colors = bytearray(stride), set()
    for y in range(height):
        filt, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a, b = line[i - bpp] if i >= bpp else 0, previous[i]
            c = previous[i - bpp] if i >= bpp else 0
            predictor = [0, a, b, (a + b) // 2, _paeth(a, b, c)][filt]
            line[i] = (line[i] + predictor) & 0xFF
        colors.update(bytes(line[i:i + 3]) for i in range(0, stride, bpp))
        previous = line
    return colors


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


@needs_chromium
def test_real_trace_page_draws_every_slice_and_arrow(real_trace, tmp_path):
    result = _cli(real_trace, "-o", tmp_path / "swimlane.html")
    assert result.returncode == 0, result.stderr
    page = Path(result.stdout.strip())
    events = json.loads(real_trace.read_text())["traceEvents"]
    dom = _chromium(page, "--dump-dom")
    assert not _console(dom), _console(dom)
    assert _body_counts(dom.stdout) == {"slices": sum(e["ph"] == "X" for e in events), "flows": _flow_pairs(events)}

    shot = tmp_path / "swimlane.png"
    result = _chromium(page, f"--screenshot={shot}", "--window-size=1000,500")
    assert not _console(result), _console(result)
    assert shot.is_file() and len(_png_colors(shot)) > 30  # slices in several colours, text, arrows


@needs_chromium
def test_every_event_kind_draws_without_console_errors(tmp_path):
    """Counters, instants of each scope, async, unfinished and B/E slices, flows: the page's code paths run."""
    trace = {"displayTimeUnit": "ns", "traceEvents": [
        _meta("process_name", 1, {"name": "cluster 0"}), _meta("thread_name", 1, {"name": "AIC"}),
        {"ph": "B", "name": "outer", "pid": 1, "tid": 0, "ts": 0}, _x("inner", 1, 0, 1, 2, args={"k": [1, 2]}),
        {"ph": "E", "pid": 1, "tid": 0, "ts": 5}, {"ph": "B", "name": "open", "pid": 1, "tid": 1, "ts": 4},
        *({"ph": "i", "name": f"mark {s}", "pid": 2, "tid": 0, "ts": 2, "s": s} for s in "tpg"),
        {"ph": "C", "name": "depth", "pid": 2, "ts": 0, "args": {"a": 1, "b": -2}},
        {"ph": "C", "name": "depth", "pid": 2, "ts": 3, "args": {"a": 4, "b": 0}},
        {"ph": "b", "name": "req", "id": 1, "cat": "io", "pid": 2, "ts": 1}, {"ph": "e", "name": "req", "id": 1,
                                                                            "cat": "io", "pid": 2, "ts": 6},
        {"ph": "s", "id": 5, "cat": "d", "pid": 1, "tid": 0, "ts": 2}, {"ph": "f", "id": 5, "cat": "d", "pid": 2,
                                                                       "tid": 0, "ts": 5.5},  # binds to no slice
    ]}
    path = tmp_path / "kinds.json"
    path.write_text(json.dumps(trace))
    page = swimlane_view.write(path)
    page.write_text(page.read_text().replace("</body>", f"<script>{HOVER_PROBE}</script></body>"))
    dom = _chromium(page, "--dump-dom")
    assert not _console(dom), _console(dom)
    assert _body_counts(dom.stdout) == {"slices": 4, "flows": 1}
    tips = json.loads(html.unescape(re.search(r'data-tips="([^"]*)"', dom.stdout).group(1)))
    assert {"outer", "inner", "open", "req", "mark t"} <= {tip.split("\n")[0] for tip in tips}
    assert any(tip.startswith("mark t\n") and "\n\nmark p\n" in tip and "\n\nmark g\n" in tip for tip in tips)
    inner = next(tip for tip in tips if tip.startswith("inner\n"))
    assert "start: 1000 ns" in inner and "duration: 2000 ns" in inner and '"k": [' in inner
    assert any("no end event" in tip for tip in tips if tip.startswith("open\n"))
    assert any(tip.startswith("depth at ") and "\na: " in tip and "\nb: " in tip for tip in tips)


# Moves the mouse over the whole chart (handlers run synchronously) and keeps every tooltip shown.
HOVER_PROBE = """
const chart = document.getElementById('chart'), box = chart.getBoundingClientRect(), seen = new Set();
for (let y = box.top + 1; y < box.bottom; y += 4) {
  for (let x = box.left + 1; x < box.right; x += 4) {
    chart.dispatchEvent(new MouseEvent('mousemove', {clientX: x, clientY: y, bubbles: true}));
    const tip = document.getElementById('tip');
    if (tip.style.display === 'block') seen.add(tip.textContent);
  }
}
document.body.dataset.tips = JSON.stringify([...seen]);
"""


@needs_chromium
def test_twenty_thousand_slices_and_arrows_all_draw(tmp_path):
    count = 20_000
    events = [_x(f"kernel{i % 7} (task {i})", 1 + i % 4, i % 3, i * 0.25, 0.2, args={"task": i}) for i in range(count)]
    for i in range(1, count):
        events.append({"ph": "s", "id": i, "cat": "dep", "pid": 1 + (i - 1) % 4, "tid": (i - 1) % 3,
                       "ts": (i - 1) * 0.25 + 0.1})
        events.append({"ph": "f", "id": i, "cat": "dep", "bp": "e", "pid": 1 + i % 4, "tid": i % 3,
                       "ts": i * 0.25 + 0.05})
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"traceEvents": events}))
    page = swimlane_view.write(path)
    dom = _chromium(page, "--dump-dom")
    assert not _console(dom), _console(dom)
    assert _body_counts(dom.stdout) == {"slices": count, "flows": count - 1}

    page.write_text(page.read_text().replace("</body>", f"<script>{ZOOM_PROBE}</script></body>"))
    # The probe reads the chart after two animation frames; on a loaded machine headless Chromium may write the
    # page out before they come, so a page without the probe's answer is loaded again (with more virtual time).
    for budget in (5000, 20000, 60000):
        dom = _chromium(page, "--dump-dom", f"--virtual-time-budget={budget}")
        assert not _console(dom), _console(dom)
        answer = re.search(r'data-zoom="([^"]*)"', dom.stdout)
        if answer:
            break
    assert answer, "the zoom probe never answered"
    zoomed, fitted = json.loads(html.unescape(answer.group(1)))
    assert 0 < zoomed < count / 10 and fitted == count


# Zooms in with the button and the wheel, drags, then fits; records the slices drawn after each redraw.
ZOOM_PROBE = """
const chart = document.getElementById('chart'), box = chart.getBoundingClientRect();
const at = {clientX: box.left + 600, clientY: box.top + 100, bubbles: true, cancelable: true};
for (let i = 0; i < 4; i++) document.getElementById('zoom-in').click();
chart.dispatchEvent(new WheelEvent('wheel', Object.assign({deltaY: -300}, at)));
chart.dispatchEvent(new MouseEvent('mousedown', at));
window.dispatchEvent(new MouseEvent('mousemove', {clientX: box.left + 300, clientY: box.top + 100}));
window.dispatchEvent(new MouseEvent('mouseup', {}));
requestAnimationFrame(() => {
  const zoomed = Number(document.body.dataset.slices);
  document.getElementById('zoom-fit').click();
  requestAnimationFrame(() => {
    document.body.dataset.zoom = JSON.stringify([zoomed, Number(document.body.dataset.slices)]);
  });
});
"""
