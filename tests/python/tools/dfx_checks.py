"""Every run of a compiled program with every runtime DFX output on, and each output checked (see `install`).

Every run of a compiled program goes through CompiledProgram._run; once `install`ed, each one runs traced with the
swimlane (level 3), the PMU report, the dependency graph, scope statistics and a full argument dump, whatever
config the example passed. After the run the outputs are read back with the project's own readers and checked
against each other, the swimlanes are drawn with the offline viewer and the program's memory map is drawn; each
checked run prints `DFX <entry> ok (<n> kernel slices)`. Runs inside `paused()` are left alone.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
from collections import Counter
from typing import Any

from pypto.jit.compiled import CompiledProgram
from pypto.runtime import RunConfig, args_dump, dfx, pmu, scope_stats
from pypto.tools import memory_map, swimlane_view

EVERYTHING = {"enable_chip_swimlane": 3, "enable_pmu": 1, "enable_dep_gen": True, "enable_scope_stats": True,
              "enable_dump_args": 2}


def kernel_slices(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in document["traceEvents"] if e["ph"] == "X" and e.get("cat") == "kernel"]


def check_outputs(compiled: CompiledProgram) -> int:
    """Checks the DFX outputs of the program's last run against each other; returns its kernel slice count."""
    folder = compiled.dfx_dir
    host = json.loads((folder / dfx.SWIMLANE_FILE).read_text())
    device = json.loads((folder / dfx.DEVICE_SWIMLANE_FILE).read_text())
    deps = json.loads((folder / dfx.DEPS_FILE).read_text())
    slices, device_slices = kernel_slices(host), kernel_slices(device)
    per_task = Counter(s["args"]["task_id"] for s in slices)
    assert per_task == Counter(s["args"]["task_id"] for s in device_slices), "device and host slices differ"
    blocks = {t["task_id"]: t["block_num"] for t in deps["tasks"]}
    for task_id, count in per_task.items():
        assert count % blocks[task_id] == 0, f"task {task_id}: {count} slices for {blocks[task_id]} blocks"
    with (folder / pmu.PMU_FILE).open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(slices), f"{len(rows)} PMU rows for {len(slices)} kernel slices"
    assert all(int(r["cycles"]) > 0 for r in rows), "a kernel was charged no cycles"
    head, *scopes = [json.loads(line) for line in (folder / scope_stats.SCOPE_STATS_DIR /
                                                    scope_stats.STATS_FILE).read_text().splitlines()]
    assert head["kind"] == "metadata" and head["scopes"] == len(scopes)
    for record in args_dump.load(folder / args_dump.ARGS_DUMP_DIR):
        assert record.numpy().shape == record.shape
    for trace in (dfx.SWIMLANE_FILE, dfx.DEVICE_SWIMLANE_FILE):
        swimlane_view.write(folder / trace)
    memory_map.write(compiled.program, folder / "memory_map.html", platform=compiled.platform)
    return len(slices)


_paused = [False]


@contextlib.contextmanager
def paused():
    """Runs inside are not traced: the checking tools' own runs of a kernel, not the example's."""
    _paused[0] = True
    try:
        yield
    finally:
        _paused[0] = False


def install() -> None:
    run = CompiledProgram._run

    def traced(self: CompiledProgram, args: list[Any], config: Any = None) -> Any:
        if _paused[0]:
            return run(self, args, config)
        base = config if config is not None else RunConfig(platform=self.platform)
        result = run(self, args, dataclasses.replace(base, **EVERYTHING))
        if self.executable is not None:
            print(f"DFX {self.entry} ok ({check_outputs(self)} kernel slices)")
        return result

    CompiledProgram._run = traced
