"""pypto.debug.bisect and `pypto debug bisect`: the first pass after which the torch script computes something else.

A deliberately broken pass (a plugin built here, turning tile.add into tile.sub) is put into the default
pipeline; bisect must name it and the output it broke, and a correct pipeline must bisect clean. With
keep_stages (`--dump-passes`) every stage's script and outputs stay on disk, and each script reruns alone.
"""

import math
import subprocess
import sys
from pathlib import Path

import numpy as np

import pytest
import torch

import pypto.language as pl
from plugin_builder import build_plugin
from pypto import cli, passes
from pypto.debug import BisectReport, bisect
from pypto.jit import CompiledProgram
from pypto.runtime import RunConfig

CORRUPT_ADD_SOURCE = r"""
#include <memory>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

class AddToSub : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;
  ir::ExprPtr Mutate_(const ir::Ref<ir::Call>& node) override {
    ir::ExprPtr visited = IRMutator::Mutate_(node);
    auto call = ir::As<ir::Call>(visited);
    if (!call || call->is_function_call() || call->op->name != "tile.add") return visited;
    return ops::OpRegistry::Global().Create("tile.sub", call->args, call->kwargs, call->span);
  }
};

class CorruptAdd : public pass::Pass {
 public:
  std::string name() const override { return PASS_NAME; }
  std::string description() const override { return "turns tile.add into tile.sub (broken on purpose)"; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) override {
    std::vector<ir::FunctionPtr> functions;
    for (const auto& f : program->functions) functions.push_back(AddToSub().VisitFunction(f));
    auto copy = std::make_shared<ir::Program>(*program);
    copy->functions = std::move(functions);
    return copy;
  }
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddPass(PASS_NAME, "turns tile.add into tile.sub", [] { return std::make_unique<CorruptAdd>(); });
}

}  // namespace

PYPTO_PLUGIN(PLUGIN_NAME, "1.0.0", Register)
"""

KERNEL_FILE = '''
import pypto.language as pl


@pl.jit
def add_scale(x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(pl.load(x, [0, 0], [32, 64]), pl.load(y, [0, 0], [32, 64]))
        pl.store(pl.mul(s, 2.0), [0, 0], out)
    return out
'''


@pl.jit
def add_scale(x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32],
              out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.add(pl.load(x, [0, 0], [32, 64]), pl.load(y, [0, 0], [32, 64]))
        pl.store(pl.mul(s, 2.0), [0, 0], out)
    return out


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """(plugin folder, pipeline YAML): the default pipeline with CorruptAdd before InferTileMemorySpace."""
    root = tmp_path_factory.mktemp("bisect_plugins")
    folder = build_plugin(root / "bisect_corrupt_add", "bisect_corrupt_add", CORRUPT_ADD_SOURCE, kind="pass",
                          provides=["BisectCorruptAdd"], defines={"PASS_NAME": "BisectCorruptAdd"})
    default = [step["pass"] for step in passes.load_pipeline("default")["passes"]]
    at = default.index("InferTileMemorySpace")
    steps = [*default[:at], "BisectCorruptAdd", *default[at:]]
    pipeline = root / "broken.yaml"
    pipeline.write_text("name: broken\ninput_properties: []\npasses:\n" + "".join(f"  - {s}\n" for s in steps))
    return folder, pipeline


def inputs():
    generator = torch.Generator().manual_seed(0)
    return torch.rand(32, 64, generator=generator), torch.rand(32, 64, generator=generator), torch.zeros(32, 64)


def test_a_correct_kernel_bisects_clean(tmp_path):
    x, y, out = inputs()
    report = bisect(add_scale, x, y, out, dump_dir=tmp_path / "dumps")
    assert isinstance(report, BisectReport) and report.ok, str(report)
    assert report.culprit is None and report.final_mismatch is None and report.simulated
    assert report.stages[0] == "input" and "ConvertTensorToTileOps" in report.stages
    assert len(report.stages) == 1 + len(passes.load_pipeline("default")["passes"])
    assert report.dump_dir == tmp_path / "dumps" / "passes_dump"
    assert torch.equal(out, torch.zeros(32, 64))  # the arguments are not written: every run gets copies
    text = str(report)
    assert "no pass changed the outputs" in text and "agrees with the simulator" in text


def test_a_broken_pass_is_named_with_the_output_and_the_error(broken):
    folder, pipeline = broken
    x, y, out = inputs()
    report = bisect(add_scale, x, y, out, config=RunConfig(pipeline=str(pipeline), plugins=[str(folder)]))
    assert not report.ok
    assert report.culprit == "BisectCorruptAdd"
    assert report.previous == "AutoTileMatmulL0"
    assert report.culprit_dump.name.endswith("_BisectCorruptAdd.py")
    d = report.divergence
    assert d.output == "out"
    # add became sub: (x - y) * 2 against (x + y) * 2, so the error is 4 |y|, largest where y is.
    expected_error = (4 * y).abs()
    assert d.max_abs == pytest.approx(expected_error.max().item(), rel=1e-5)
    assert expected_error[d.index].item() == pytest.approx(d.max_abs, rel=1e-5)
    assert d.expected == pytest.approx(((x + y) * 2)[d.index].item(), rel=1e-5)
    assert d.got == pytest.approx(((x - y) * 2)[d.index].item(), rel=1e-5, abs=1e-6)
    # The simulator ran the broken program too: it agrees with the final script, so no codegen bug.
    assert report.vs_simulator is None and report.final_mismatch is None
    text = str(report)
    assert "FIRST DIVERGING PASS: BisectCorruptAdd" in text and "output 'out'" in text


def test_a_final_script_that_disagrees_with_the_simulator_is_a_codegen_or_simulator_bug(monkeypatch):
    run_bound = CompiledProgram.run_bound

    def wrong_simulator(self, values, config=None):
        result = run_bound(self, values, config)
        values["out"][3, 7] += 1.0
        return result

    monkeypatch.setattr(CompiledProgram, "run_bound", wrong_simulator)
    report = bisect(add_scale, *inputs())
    assert report.culprit is None and not report.ok
    assert report.final_mismatch.output == "out" and report.final_mismatch.index == (3, 7)
    assert report.final_mismatch.max_abs == pytest.approx(1.0, rel=1e-5)
    assert "FINAL SCRIPT DIFFERS FROM THE SIMULATOR" in str(report)


def test_the_command_names_the_broken_pass(broken, tmp_path, capsys):
    folder, pipeline = broken
    kernel_file = tmp_path / "kernels.py"
    kernel_file.write_text(KERNEL_FILE)
    assert cli.main(["debug", "bisect", f"{kernel_file}::add_scale", "--seed", "1"]) == 0
    assert "no pass changed the outputs" in capsys.readouterr().out
    status = cli.main(["debug", "bisect", f"{kernel_file}::add_scale", "--pipeline", str(pipeline),
                       "--plugin", str(folder), "--out", str(tmp_path / "out")])
    printed = capsys.readouterr().out
    assert status == 1
    assert "FIRST DIVERGING PASS: BisectCorruptAdd" in printed and "output 'out'" in printed
    assert (tmp_path / "out" / "passes_dump").is_dir()
    assert not (tmp_path / "out" / "bisect_stages").exists()  # kept only when asked (--dump-passes)


def test_keep_stages_leaves_each_stages_script_and_outputs_beside_the_simulators(broken, tmp_path):
    folder, pipeline = broken
    x, y, out = inputs()
    report = bisect(add_scale, x, y, out, config=RunConfig(pipeline=str(pipeline), plugins=[str(folder)]),
                    dump_dir=tmp_path / "run", keep_stages=True)
    stages = tmp_path / "run" / "bisect_stages"
    assert report.stages_dir == stages and f"stage scripts and outputs in {stages}" in str(report)
    saved_inputs = np.load(stages / "inputs.npz")
    assert np.array_equal(saved_inputs["x"], x.numpy()) and np.array_equal(saved_inputs["y"], y.numpy())
    assert np.allclose(np.load(stages / "simulator.npz")["out"], ((x - y) * 2).numpy(), atol=1e-5)
    # One script and one output file per stage, named as the stage's dump in passes_dump.
    dumps = sorted(p.stem for p in report.dump_dir.glob("[0-9]*.py"))
    assert sorted(p.name.removesuffix("_torch.py") for p in stages.glob("*_torch.py")) == dumps
    culprit = report.culprit_dump.stem
    assert np.allclose(np.load(stages / f"{culprit}.npz")["out"], ((x - y) * 2).numpy(), atol=1e-5)
    assert np.allclose(np.load(stages / f"{dumps[0]}.npz")["out"], ((x + y) * 2).numpy(), atol=1e-5)
    # The culprit's script reruns alone on the saved inputs and gives what bisect recorded.
    rerun = subprocess.run([sys.executable, str(stages / f"{culprit}_torch.py"), "--inputs", str(stages / "inputs.npz"),
                            "--save", str(tmp_path / "rerun.npz")], capture_output=True, text=True, timeout=120)
    assert rerun.returncode == 0, rerun.stderr
    assert np.array_equal(np.load(tmp_path / "rerun.npz")["out"], np.load(stages / f"{culprit}.npz")["out"])


def test_the_commands_dump_passes_flag_keeps_the_stages(tmp_path, capsys):
    kernel_file = tmp_path / "kernels.py"
    kernel_file.write_text(KERNEL_FILE)
    assert cli.main(["debug", "bisect", f"{kernel_file}::add_scale", "--out", str(tmp_path / "out"),
                     "--dump-passes"]) == 0
    stages = tmp_path / "out" / "bisect_stages"
    assert f"stage scripts and outputs in {stages}" in capsys.readouterr().out
    assert (stages / "inputs.npz").is_file() and (stages / "simulator.npz").is_file()
    assert (stages / "00_input_torch.py").is_file() and (stages / "00_input.npz").is_file()


def test_a_relative_error_is_taken_only_where_the_expected_value_is_not_zero():
    from pypto.debug.bisect import compare

    expected = {"out": torch.tensor([0.0, 2.0, 0.0])}
    only_zeros_differ = compare(expected, {"out": torch.tensor([1.0, 2.0, -3.0])})
    assert only_zeros_differ.max_abs == 3.0 and only_zeros_differ.index == (2,)
    assert math.isnan(only_zeros_differ.max_rel)
    assert "max rel error none (every differing element should be 0)" in str(only_zeros_differ)
    both = compare(expected, {"out": torch.tensor([1.0, 3.0, 0.0])})
    assert both.max_rel == 0.5 and both.max_abs == 1.0
