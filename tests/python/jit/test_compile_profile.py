"""compile() writes report/compile_profile.{txt,json}: the time of every step of the compile, by stage."""

import json
import re

import pytest

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig

STAGES = ["setup", "frontend", "passes", "codegen", "toolchain", "write"]


@pl.jit
def scale(x: pl.Tensor[[256, 64], pl.FP32], w: pl.Tensor[[16, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[256, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.load(w, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for i in pl.range(0, 256, 16):
            t = pl.load(x, [i, 0], [16, 64], target_memory=pl.Mem.Vec)
            out = pl.store(pl.mul(t, s), [i, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, 256, 16):
            t = pl.load(out, [i, 0], [16, 64], target_memory=pl.Mem.Vec)
            out = pl.store(pl.add(t, t), [i, 0], out)
    return out


@pl.program
class AddOne:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out[:] = pl.add(a, 1.0)
        return out


@pytest.fixture(autouse=True)
def fresh_caches(build_dir, monkeypatch, tmp_path):
    """No compiled program in memory and an empty kernel object cache, so the first compile builds every kernel."""
    scale.clear_cache()
    monkeypatch.setenv("PYPTO_CACHE_DIR", str(tmp_path / "object_cache"))


def compile_into(folder, **options):
    return scale.compile(config=RunConfig(save_kernels_dir=str(folder), **options))


def profile_of(compiled) -> dict:
    return json.loads((compiled.report_dir / "compile_profile.json").read_text())


def rows(profile: dict, stage: str) -> list[dict]:
    return [row for row in profile["stages"] if row["stage"] == stage]


def test_every_stage_is_timed_and_the_stages_add_up_to_the_total(tmp_path):
    profile = profile_of(compile_into(tmp_path / "out"))
    assert [s for s in STAGES if rows(profile, s)] == STAGES
    assert all(row["ms"] >= 0 for row in profile["stages"])
    assert [row["name"] for row in rows(profile, "frontend")] == ["specialize", "parse"]
    timed = sum(row["ms"] for row in profile["stages"])
    # total_ms is the whole compile; only Python bookkeeping between the steps is left out of the rows.
    rounding = 0.001 * len(profile["stages"]) + 0.01  # every ms in the file is rounded to the microsecond
    assert timed + profile["untimed_ms"] == pytest.approx(profile["total_ms"], abs=rounding)
    assert 0 <= profile["untimed_ms"] < 0.5 * profile["total_ms"]


def test_the_passes_keep_their_old_json_and_have_one_row_each(tmp_path):
    profile = profile_of(compile_into(tmp_path / "out"))
    pass_rows = [row for row in rows(profile, "passes") if "position" in row]
    assert [(p["position"], p["pass"], p["ms"]) for p in profile["passes"]] == \
        [(r["position"], r["name"], r["ms"]) for r in pass_rows]
    assert profile["passes"][-1]["pass"] == "InsertPipeSync"
    assert [row["name"] for row in rows(profile, "passes") if "position" not in row] == ["(pass manager)"]


def test_codegen_has_a_row_per_backend_listing_every_file_it_generated(tmp_path):
    compiled = compile_into(tmp_path / "out")
    codegen = {row["name"]: row["artifacts"] for row in rows(profile_of(compiled), "codegen")}
    relative = [str(p.relative_to(compiled.output_dir)) for p in compiled.kernel_files]
    assert len(relative) == 2
    assert sorted(codegen["npu"]) == relative
    assert codegen["host"] == [str(p.relative_to(compiled.output_dir)) for p in compiled.orchestration_files]
    assert codegen["torch"] == ["debug/_jit_scale_torch.py"]
    assert list(codegen) == ["npu", "host", "torch"]


def test_a_second_compile_in_a_fresh_folder_reports_the_object_cache(tmp_path):
    first = rows(profile_of(compile_into(tmp_path / "first")), "toolchain")
    assert first == [{"stage": "toolchain", "name": "simulator", "ms": first[0]["ms"], "kernels": 2,
                      "from_cache": 0, "cached": False}]
    scale.clear_cache()  # compile again: the kernel objects now come from the disk
    compiled = compile_into(tmp_path / "second")
    (second,) = rows(profile_of(compiled), "toolchain")
    assert (second["kernels"], second["from_cache"], second["cached"]) == (2, 2, True)
    text = (compiled.report_dir / "compile_profile.txt").read_text()
    assert re.search(r"^  simulator +[\d.]+ ms +[\d.]+%  cached: 2 kernels, all from the object cache$", text, re.M)


def test_a_jit_cache_hit_compiles_nothing_and_writes_no_profile(tmp_path):
    first = compile_into(tmp_path / "first")
    again = compile_into(tmp_path / "second")
    assert again is first
    assert not (tmp_path / "second").exists()
    assert scale.cache_info().hits == 1


def test_a_toolchain_that_cannot_run_here_says_so(tmp_path):
    compiled = compile_into(tmp_path / "out", platform="a2a3")
    (toolchain,) = rows(profile_of(compiled), "toolchain")
    assert (toolchain["name"], toolchain["ms"], toolchain["ran"]) == ("ascend", 0.0, False)
    assert toolchain["why"] == compiled.unavailable
    assert "ascend" in (compiled.report_dir / "compile_profile.txt").read_text().split("\n\n")[0]


def test_the_text_has_a_summary_then_a_section_per_stage(tmp_path):
    compiled = compile_into(tmp_path / "out")
    profile = profile_of(compiled)
    summary, *sections = (compiled.report_dir / "compile_profile.txt").read_text().rstrip("\n").split("\n\n")
    head, *lines = summary.splitlines()
    assert head == f"Compile profile: {profile['total_ms']:.3f} ms"
    row = re.compile(r"^  (\S.*?) +(\d+\.\d{3}) ms +(\d+\.\d)%(  .*)?$")
    parsed = [row.match(line) for line in lines]
    assert all(parsed), lines
    assert [m.group(1) for m in parsed] == STAGES + ["untimed"]
    assert sum(float(m.group(3)) for m in parsed) == pytest.approx(100, abs=0.1 * len(parsed))
    assert [s.splitlines()[0].split(":")[0] for s in sections] == STAGES
    columns = {line.index(" ms ") for section in sections for line in section.splitlines()[1:]}
    assert len(columns) == 1  # every table of the file lines up
    passes = sections[STAGES.index("passes")].splitlines()[1:]
    assert len(passes) == len(profile["passes"]) + 1
    assert passes[-2].split()[:2] == [str(len(profile["passes"])), "InsertPipeSync"]


def test_ir_compile_writes_the_profile_without_a_frontend_stage(tmp_path):
    compiled = ir.compile(AddOne, tmp_path / "out", config=RunConfig())
    profile = profile_of(compiled)
    assert [s for s in STAGES if rows(profile, s)] == [s for s in STAGES if s != "frontend"]
    assert rows(profile, "toolchain")[0]["kernels"] == len(compiled.kernel_files) == 1
