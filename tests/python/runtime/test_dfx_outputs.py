"""Runtime DFX on the simulator: RunConfig(enable_chip_swimlane=N) writes dfx_outputs/chip_swimlane.json (Chrome
Trace Event JSON) and its device-time twin chip_swimlane_device.json, enable_pmu=N writes pmu.csv, and
enable_dep_gen=True writes dfx_outputs/deps.json and deps.dot; without a flag nothing is written."""

import csv
import json
import re
from collections import Counter, defaultdict

import jsonschema
import pytest
import torch

import pypto.language as pl
from pypto import platforms
from pypto.runtime import RunConfig, dfx, pmu
from dfx_programs import rows_then_add


@pl.jit
def declared_then_matmul(a: pl.Tensor[[64, 64], pl.FP16], b: pl.Tensor[[64, 64], pl.FP16],
                         c: pl.Out[pl.Tensor[[64, 64], pl.FP32]], d: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="product") as first:
        c[:] = pl.matmul(a, b, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_after", deps=[first]):
        d[:] = pl.exp(pl.cast(a, pl.FP32))
    return c, d


def _run_rows(config):
    x = torch.randn(64, 64)
    y, z = torch.zeros(64, 64), torch.zeros(64, 64)
    rows_then_add(x, y, z, config=config)
    torch.testing.assert_close(z, torch.exp(x) + x)
    return rows_then_add.compile(x, y, z, config=config)


def _run_declared(config):
    a, b = torch.randn(64, 64).half(), torch.randn(64, 64).half()
    c, d = torch.zeros(64, 64), torch.zeros(64, 64)
    declared_then_matmul(a, b, c, d, config=config)
    torch.testing.assert_close(c, a.float() @ b.float(), rtol=1e-3, atol=1e-3)
    return declared_then_matmul.compile(a, b, c, d, config=config)


@pytest.fixture(autouse=True)
def build_root(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    for kernel in (rows_then_add, declared_then_matmul):
        kernel.clear_cache()
    return tmp_path / "build_output"


ID = {"type": "string", "pattern": "^[0-9]+$"}
INTS = {"type": "array", "items": {"type": "integer"}}

DEPS_SCHEMA = {
    "type": "object",
    "required": ["runtime", "tasks", "tensors", "edges"],
    "properties": {
        "runtime": {"type": "string"},
        "tasks": {"type": "array", "items": {
            "type": "object",
            "required": ["task_id", "kernel", "kernels", "block_num", "args"],
            "properties": {
                "task_id": ID, "kernel": {"type": "string"},
                "kernels": {"type": "array", "items": {"type": "string"}},
                "block_num": {"type": "integer", "minimum": 0},
                "args": {"type": "array", "items": {"oneOf": [
                    {"type": "object", "required": ["index", "direction", "tensor_id", "shape", "offsets"],
                     "properties": {"index": {"type": "integer"},
                                    "direction": {"enum": ["Input", "Output", "InOut", "OutputExisting", "NoDep"]},
                                    "tensor_id": ID, "shape": INTS, "offsets": INTS}},
                    {"type": "object", "required": ["index", "direction", "value"],
                     "properties": {"direction": {"const": "Scalar"}, "value": {"type": "string"}}},
                ]}},
            }}},
        "tensors": {"type": "array", "items": {
            "type": "object", "required": ["tensor_id", "buffer_addr", "dtype", "shape"],
            "properties": {"tensor_id": ID, "buffer_addr": {"type": "string", "pattern": "^0x[0-9a-f]+$"},
                           "dtype": {"type": "string"}, "shape": INTS}}},
        "edges": {"type": "array", "items": {
            "type": "object", "required": ["pred", "succ", "source", "overlaps"],
            "properties": {"pred": ID, "succ": ID, "source": {"enum": ["explicit", "overlap"]},
                           "overlaps": {"type": "array", "items": {
                               "type": "object", "required": ["arg", "pred_arg", "tensor_id"],
                               "properties": {"arg": {"type": "integer"}, "pred_arg": {"type": "integer"},
                                              "tensor_id": ID}}}}}},
    },
}

SWIMLANE_SCHEMA = {
    "type": "object",
    "required": ["traceEvents"],
    "properties": {"traceEvents": {"type": "array", "items": {
        "type": "object",
        "required": ["ph", "pid", "tid", "name"],
        "properties": {"ph": {"enum": ["M", "X", "s", "f", "i", "C"]}, "pid": {"type": "integer"},
                       "tid": {"type": "integer"}, "ts": {"type": "number", "minimum": 0},
                       "dur": {"type": "number", "minimum": 0}},
        "allOf": [
            {"if": {"properties": {"ph": {"const": "X"}}}, "then": {"required": ["ts", "dur", "args"]}},
            {"if": {"properties": {"ph": {"enum": ["s", "f"]}}}, "then": {"required": ["ts", "id"]}},
            {"if": {"required": ["cat"], "properties": {"cat": {"const": "kernel"}}},
             "then": {"properties": {"args": {
                 "required": ["task_id", "block", "block_num", "cluster", "core"],
                 "properties": {"task_id": ID, "core": {"enum": ["AIC", "AIV0", "AIV1"]}}}}}},
        ]}}},
}


def _load(compiled, name):
    document = json.loads((compiled.dfx_dir / name).read_text())
    jsonschema.validate(document, DEPS_SCHEMA if name == dfx.DEPS_FILE else SWIMLANE_SCHEMA)
    return document


def _events(swimlane, ph, cat=None):
    return [e for e in swimlane["traceEvents"] if e["ph"] == ph and (cat is None or e.get("cat") == cat)]


def _kernel_slices(swimlane):
    return _events(swimlane, "X", "kernel")


def test_the_swimlane_has_one_slice_per_block_and_core_on_named_core_tracks():
    compiled = _run_rows(RunConfig(enable_chip_swimlane=1, enable_dep_gen=True))
    swimlane, deps = _load(compiled, dfx.SWIMLANE_FILE), _load(compiled, dfx.DEPS_FILE)
    slices = _kernel_slices(swimlane)
    per_block = Counter((s["args"]["task_id"], s["args"]["block"], s["args"]["core"]) for s in slices)
    assert set(per_block.values()) == {1}
    expected = {(t["task_id"], b) for t in deps["tasks"] for b in range(t["block_num"])}
    assert {(task, block) for task, block, _ in per_block} == expected
    assert len(slices) == 5

    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in _events(swimlane, "M") if e["name"] == "thread_name"}
    processes = {e["pid"]: e["args"]["name"] for e in _events(swimlane, "M") if e["name"] == "process_name"}
    for s in slices:
        assert names[(s["pid"], s["tid"])] == s["args"]["core"]
        assert processes[s["pid"]] == f"cluster {s['args']['cluster']}"
        assert s["name"] == f"{s['args']['kernel']} (task {s['args']['task_id']}, block 0/1)"
    assert {s["args"]["kernel"] for s in slices} == {"exp_rows", "add_all"}
    # One slice at a time per core.
    by_core = defaultdict(list)
    for s in slices:
        by_core[(s["pid"], s["tid"])].append((s["ts"], s["ts"] + s["dur"]))
    for spans in by_core.values():
        spans.sort()
        assert all(end <= next_start for (_, end), (next_start, _) in zip(spans, spans[1:]))
    assert not _events(swimlane, "X", "runtime")  # level 1: kernels only


def test_flow_events_pair_up_and_run_from_each_dependency_to_its_successor():
    compiled = _run_rows(RunConfig(enable_chip_swimlane=1, enable_dep_gen=True))
    swimlane, deps = _load(compiled, dfx.SWIMLANE_FILE), _load(compiled, dfx.DEPS_FILE)
    starts = {e["id"]: e for e in _events(swimlane, "s")}
    ends = {e["id"]: e for e in _events(swimlane, "f")}
    assert len(starts) == len(_events(swimlane, "s")) and starts.keys() == ends.keys()
    assert all(e["bp"] == "e" for e in ends.values())
    flows = sorted((s["args"]["pred"], s["args"]["succ"]) for s in starts.values())
    assert flows == sorted((e["pred"], e["succ"]) for e in deps["edges"])
    slices = _kernel_slices(swimlane)
    for flow_id, start in starts.items():
        end = ends[flow_id]
        pred = [s for s in slices if s["args"]["task_id"] == start["args"]["pred"]]
        succ = [s for s in slices if s["args"]["task_id"] == start["args"]["succ"]]
        assert any(_encloses(s, start) for s in pred)
        assert any(_encloses(s, end) for s in succ)
        assert start["ts"] <= end["ts"]


def _encloses(slice_event, point):
    return ((slice_event["pid"], slice_event["tid"]) == (point["pid"], point["tid"])
            and slice_event["ts"] <= point["ts"] <= slice_event["ts"] + slice_event["dur"])


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_each_swimlane_level_adds_its_tracks(level):
    compiled = _run_rows(RunConfig(enable_chip_swimlane=level))
    swimlane = _load(compiled, dfx.SWIMLANE_FILE)
    assert swimlane["otherData"]["swimlane_level"] == level
    blocks = len(_kernel_slices(swimlane))
    dispatch = [e for e in _events(swimlane, "X", "runtime") if e["name"] == "dispatch"]
    assert len(dispatch) == (blocks if level >= 2 else 0)
    counters = _events(swimlane, "C", "scheduler")
    assert len(counters) == (2 * blocks if level >= 3 else 0)
    if counters:
        assert counters[-1]["args"]["blocks"] == 0  # every queued block was taken
    submits = _events(swimlane, "X", "orchestrator")
    assert len(submits) == (5 if level >= 4 else 0)
    assert not (compiled.dfx_dir / dfx.DEPS_FILE).exists()


def test_true_means_level_4():
    assert RunConfig(enable_chip_swimlane=True).enable_chip_swimlane == 4


def _relative(deps):
    """Edges as (pred, succ, source) with ids counted from the run's first task (ids grow across runs)."""
    first = min(int(t["task_id"]) for t in deps["tasks"])
    return sorted((int(e["pred"]) - first, int(e["succ"]) - first, e["source"]) for e in deps["edges"])


def test_deps_json_lists_the_tasks_tensors_and_the_runtimes_dependencies():
    compiled = _run_rows(RunConfig(enable_dep_gen=True))
    deps = _load(compiled, dfx.DEPS_FILE)
    assert not (compiled.dfx_dir / dfx.SWIMLANE_FILE).exists()
    assert [t["kernel"] for t in deps["tasks"]] == ["exp_rows"] * 4 + ["add_all"]
    # The parallel loop's tasks are independent; the sum waits for each through the rows it reads.
    assert _relative(deps) == [(i, 4, "overlap") for i in range(4)]
    tensor_ids = {t["tensor_id"] for t in deps["tensors"]}
    for task in deps["tasks"]:
        assert {a["tensor_id"] for a in task["args"] if "tensor_id" in a} <= tensor_ids
    for edge in deps["edges"]:
        assert edge["overlaps"] and all(o["tensor_id"] in tensor_ids for o in edge["overlaps"])

    # The same edges as the runtime's DependenciesOf, on a run traced directly.
    x, y, z = torch.randn(64, 64), torch.zeros(64, 64), torch.zeros(64, 64)
    _, trace = compiled.executable.run_traced(compiled.entry, [x, y, z])
    runtime_edges = sorted((p - trace.tasks[0].id, t.id - trace.tasks[0].id) for t in trace.tasks for p in t.deps)
    assert [(p, s) for p, s, _ in _relative(deps)] == runtime_edges
    assert _relative(dfx.deps_document(trace)) == _relative(deps)


def test_an_explicit_dep_is_labelled_explicit_and_a_cube_task_runs_on_an_aic_track():
    compiled = _run_declared(RunConfig(enable_dep_gen=True, enable_chip_swimlane=1))
    deps = _load(compiled, dfx.DEPS_FILE)
    assert _relative(deps) == [(0, 1, "explicit")]
    slices = _kernel_slices(_load(compiled, dfx.SWIMLANE_FILE))
    assert {s["args"]["kernel"]: s["args"]["core"] for s in slices} == {"product": "AIC", "copy_after": "AIV0"}


def test_deps_dot_has_a_node_per_task_and_a_labelled_edge_per_dependency():
    compiled = _run_rows(RunConfig(enable_dep_gen=True))
    deps = _load(compiled, dfx.DEPS_FILE)
    text = (compiled.dfx_dir / dfx.DOT_FILE).read_text()
    assert text.startswith("digraph deps {") and text.rstrip().endswith("}")
    nodes = re.findall(r'^\s*(t\d+) \[label="([^"]*)"\];$', text, flags=re.M)
    edges = re.findall(r'^\s*(t\d+) -> (t\d+) \[label="(explicit|overlap)"[^\]]*\];$', text, flags=re.M)
    statements = [line for line in text.splitlines()[1:-1] if line.strip()]
    assert len(statements) == 2 + len(nodes) + len(edges)  # rankdir and node defaults, then the graph
    assert len(nodes) == len(deps["tasks"]) and len(edges) == len(deps["edges"])
    declared = {name for name, _ in nodes}
    assert all(pred in declared and succ in declared for pred, succ, _ in edges)
    first = deps["tasks"][0]
    assert (f"t{first['task_id']}", f"exp_rows\\ntask {first['task_id']}") in nodes


def test_without_a_flag_nothing_is_written():
    compiled = _run_rows(RunConfig())
    assert not compiled.dfx_dir.exists()
    compiled = _run_rows(RunConfig(enable_scope_stats=False, enable_chip_swimlane=0))
    assert not compiled.dfx_dir.exists()


def test_a_cached_program_writes_dfx_outputs_when_a_later_call_asks():
    compiled = _run_rows(RunConfig())
    x, y, z = torch.randn(64, 64), torch.zeros(64, 64), torch.zeros(64, 64)
    rows_then_add(x, y, z, config=RunConfig(enable_dep_gen=True))  # the dispatch fast path: same compile options
    assert (compiled.dfx_dir / dfx.DEPS_FILE).is_file()


# ------------------------------------------------------------ performance model

A2A3 = platforms.get("a2a3sim")["throughput"]
GHZ = A2A3["clock"]["ghz"]
DISPATCH_US = A2A3["scheduler"]["dispatch_cycles"] / GHZ / 1000


def test_the_device_swimlane_places_each_block_by_its_modelled_cycles():
    compiled = _run_rows(RunConfig(enable_chip_swimlane=2))
    host, device = _load(compiled, dfx.SWIMLANE_FILE), _load(compiled, dfx.DEVICE_SWIMLANE_FILE)
    assert "device time" in device["otherData"]["time_unit"]
    assert device["otherData"]["clusters"] == platforms.get("a2a3sim")["clusters"]
    slices = _kernel_slices(device)
    assert len(slices) == len(_kernel_slices(host)) == 5
    for s in slices:
        assert s["args"]["device_cycles"] > 0
        assert s["dur"] == pytest.approx(s["args"]["device_cycles"] / GHZ / 1000)
    rows = [s for s in slices if s["args"]["kernel"] == "exp_rows"]
    (add_all,) = [s for s in slices if s["args"]["kernel"] == "add_all"]
    # The four row tasks are independent: each on its own vector core, all after one dispatch latency.
    assert len({(s["pid"], s["tid"]) for s in rows}) == 4
    assert all(s["ts"] == pytest.approx(DISPATCH_US) for s in rows)
    last_row_end = max(s["ts"] + s["dur"] for s in rows)
    assert add_all["ts"] == pytest.approx(last_row_end + DISPATCH_US)
    # Identical blocks cost identical cycles: the model depends on the instructions, not on the host's timing.
    assert len({s["args"]["device_cycles"] for s in rows}) == 1
    dispatch = [e for e in _events(device, "X", "runtime") if e["name"] == "dispatch"]
    assert len(dispatch) == 5


def test_the_device_swimlane_stops_at_the_scheduler_level():
    compiled = _run_rows(RunConfig(enable_chip_swimlane=4))
    device = _load(compiled, dfx.DEVICE_SWIMLANE_FILE)
    assert device["otherData"]["swimlane_level"] == 3
    assert not _events(device, "X", "orchestrator")
    assert len(_events(device, "C", "scheduler")) == 10


def _pmu_rows(compiled):
    with (compiled.dfx_dir / pmu.PMU_FILE).open() as f:
        return list(csv.DictReader(f))


def test_pmu_csv_has_a_row_per_kernel_with_its_pipes_and_bytes():
    compiled = _run_rows(RunConfig(enable_pmu=True))
    assert not (compiled.dfx_dir / dfx.SWIMLANE_FILE).exists()
    rows = _pmu_rows(compiled)
    assert [r["kernel"] for r in rows] == ["exp_rows"] * 4 + ["add_all"]
    assert list(rows[0]) == pmu.columns(pmu.ALL_EVENTS)
    for r in rows[:4]:
        # 16 x 64 FP32 rows: one load, one exp, one store.
        assert int(r["GM_bytes_read"]) == int(r["GM_bytes_written"]) == 16 * 64 * 4
        assert (int(r["MTE2_instructions"]), int(r["V_instructions"]), int(r["MTE3_instructions"])) == (1, 1, 1)
        assert int(r["M_instructions"]) == int(r["MTE1_instructions"]) == 0
        busy = sum(int(r[f"{p}_busy_cycles"]) for p in pmu.PIPES)
        assert 0 < busy <= int(r["cycles"])  # a chain of dependent instructions: nothing overlaps
    add = rows[4]
    assert int(add["GM_bytes_read"]) == 2 * 64 * 64 * 4 and int(add["GM_bytes_written"]) == 64 * 64 * 4
    assert int(add["MTE2_instructions"]) == 2
    assert all(0 <= float(r[f"{p}_utilization"]) <= 1 for r in rows for p in pmu.PIPES)


@pytest.mark.parametrize("level, pipes, memory", [(2, True, False), (4, False, True), (6, True, True)])
def test_pmu_event_groups_choose_the_columns(level, pipes, memory):
    compiled = _run_rows(RunConfig(enable_pmu=level))
    header = list(_pmu_rows(compiled)[0])
    assert ("V_busy_cycles" in header) == pipes
    assert ("GM_bytes_read" in header) == memory


def test_the_cube_is_charged_its_macs():
    compiled = _run_declared(RunConfig(enable_pmu=2))
    (product,) = [r for r in _pmu_rows(compiled) if r["kernel"] == "product"]
    assert product["core"] == "AIC"
    assert int(product["M_instructions"]) >= 1
    macs_per_cycle = A2A3["M"]["fp16_macs_per_cycle"]
    assert int(product["M_busy_cycles"]) == 64 * 64 * 64 // macs_per_cycle


@pytest.mark.parametrize("level", [3, 5, 8, -2])
def test_an_unknown_pmu_level_is_refused(level):
    with pytest.raises(ValueError, match="enable_pmu must be"):
        RunConfig(enable_pmu=level)


def test_the_device_swimlane_charts_the_global_memory_bandwidth_in_use():
    compiled = _run_rows(RunConfig(enable_chip_swimlane=1))
    host, device = _load(compiled, dfx.SWIMLANE_FILE), _load(compiled, dfx.DEVICE_SWIMLANE_FILE)
    assert not _events(host, "C", "memory")
    usage = _events(device, "C", "memory")
    assert usage and usage[0]["ts"] == 0 and usage[-1]["args"]["GB/s"] == 0
    peak = max(e["args"]["GB/s"] for e in usage)
    assert 0 < peak <= A2A3["DDR"]["gb_per_second"]
    names = {e["pid"]: e["args"]["name"] for e in _events(device, "M") if e["name"] == "process_name"}
    assert names[usage[0]["pid"]] == "global memory"
