"""`pypto compile FILE.py::FUNC` and `pypto run FILE.py::FUNC`: compile a kernel from the command line,
run it on random inputs or an .npz file, and report every mistake as one line with exit status 2."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from plugin_builder import build_tag_pass
from pypto import cli, passes

KERNELS = textwrap.dedent("""
    import pypto.language as pl

    ROWS = pl.dynamic("ROWS")


    @pl.jit
    def scaled(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
               factor: pl.Scalar[pl.FP32] = 3.0):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.mul(pl.load(x, [0, 0], [16, 64]), factor), [0, 0], out)
        return out


    @pl.jit
    def plus_one(x: pl.Tensor[[16, 64], pl.FP32]):
        out = pl.create_tensor([16, 64], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.add(pl.load(x, [0, 0], [16, 64]), 1.0), [0, 0], out)
        return out


    @pl.jit.incore
    def double_rows(x: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        out = pl.store(pl.mul(t, 2.0), [0, 0], out)
        return out


    @pl.jit
    def unshaped(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        return out


    def helper(x):
        return x
""")


@pytest.fixture
def work(tmp_path, monkeypatch):
    """A working folder holding kernels.py; the build output goes under it."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    return tmp_path


def pypto(capsys, *args):
    """Runs the command in this process: (exit status, stdout lines, stderr lines)."""
    status = cli.main(list(args))
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err.splitlines()


def test_compile_prints_where_the_output_went(work, capsys):
    status, out, err = pypto(capsys, "compile", "kernels.py::scaled", "--out", "scaled_out")
    assert status == 0, err
    folder = work / "scaled_out"
    assert out == [f"scaled: compiled for a2a3sim (pipeline default, backend npu) into {folder}: "
                   "1 kernel file, 1 orchestration file"]
    assert len(list(folder.glob("kernels/*/*.cpp"))) == 1
    assert json.loads((folder / "compiled_meta.json").read_text())["platform"] == "a2a3sim"
    assert not (folder / "passes_dump").exists()


def test_compile_takes_dynamic_dimensions_and_a_file_with_one_kernel_needs_no_name(work, capsys):
    status, out, err = pypto(capsys, "compile", "kernels.py::double_rows", "--platform", "a5sim")
    assert status == 0, err
    assert out[0].startswith("double_rows: compiled for a5sim (pipeline default, backend npu) into "
                             f"{work / 'build_output'}/_jit_double_rows_")
    (work / "single.py").write_text("import pypto.language as pl\n\n\n@pl.jit\n" + KERNELS.split("@pl.jit\n")[1])
    status, out, err = pypto(capsys, "compile", "single.py", "--out", "single_out")
    assert status == 0, err
    assert out[0].startswith("scaled: compiled for a2a3sim")


def test_compile_with_a_pipeline_naming_a_plugin_pass_and_its_options(work, capsys, tmp_path_factory):
    plugin = build_tag_pass(tmp_path_factory.mktemp("cli_plugins") / "cli_tag", "cli_tag", "CliTag")
    pipeline = work / "tagged.yaml"
    default = [step["pass"] for step in passes.load_pipeline("default")["passes"]]
    pipeline.write_text("name: tagged\ninput_properties: []\npasses:\n" + "".join(f"  - {p}\n" for p in default)
                        + "  - {name: CliTag, options: {tag: from_cli}}\n")
    status, out, err = pypto(capsys, "compile", "kernels.py::scaled", "--pipeline", str(pipeline),
                             "--plugin", str(plugin), "--out", "tagged_out", "--dump-passes")
    assert status == 0, err
    assert "(pipeline " + str(pipeline) + ", backend npu)" in out[0]
    last_dump = sorted((work / "tagged_out" / "passes_dump").iterdir())[-1]
    assert last_dump.name == f"{len(default) + 1:02d}_CliTag.py"
    assert "_jit_scaled_from_cli" in last_dump.read_text()


def test_run_prints_one_line_per_output_from_seeded_random_inputs(work, capsys):
    status, out, err = pypto(capsys, "run", "kernels.py::scaled", "--seed", "7", "--save", "outputs.npz")
    assert status == 0, err
    assert len(out) == 2 and out[1] == f"saved out to {work / 'outputs.npz'}"
    name, dtype, shape, *stats = out[0].replace("[16, 64]", "[16,64]").split()
    assert (name, dtype, shape) == ("out:", "float32", "[16,64]")
    saved = np.load(work / "outputs.npz")["out"]
    assert saved.shape == (16, 64) and np.abs(saved).max() <= 3.0 and saved.std() > 0.5
    mean = saved.astype(float).mean()
    assert stats == ["min", f"{saved.min():.6g}", "max", f"{saved.max():.6g}", "mean", f"{mean:.6g}"]
    # The same seed gives the same inputs, another seed others.
    assert pypto(capsys, "run", "kernels.py::scaled", "--seed", "7")[1] == out[:1]
    assert pypto(capsys, "run", "kernels.py::scaled", "--seed", "8")[1] != out[:1]


def test_run_reads_inputs_and_scalars_from_an_npz_file(work, capsys):
    x = np.arange(16 * 64, dtype=np.float64).reshape(16, 64) / 100  # converted to the parameter's FP32
    np.savez(work / "inputs.npz", x=x, factor=np.array(0.5))
    status, out, err = pypto(capsys, "run", "kernels.py::scaled", "--inputs", "inputs.npz", "--save", "result")
    assert status == 0, err
    np.testing.assert_allclose(np.load(work / "result")["out"], (x * 0.5).astype(np.float32))
    # A tensor the kernel creates and returns is the output `return`.
    np.savez(work / "ones.npz", x=np.ones((16, 64), np.float32))
    status, out, err = pypto(capsys, "run", "kernels.py::plus_one", "--inputs", "ones.npz")
    assert (status, out) == (0, ["return: float32 [16, 64] min 2 max 2 mean 2"]), err
    # Dynamic dimensions take their size from the file.
    np.savez(work / "rows.npz", x=np.ones((16, 64), np.float32), out=np.zeros((16, 64), np.float32))
    status, out, err = pypto(capsys, "run", "kernels.py::double_rows", "--inputs", "rows.npz")
    assert (status, out) == (0, ["out: float32 [16, 64] min 2 max 2 mean 2"]), err


@pytest.mark.parametrize("args, message", [
    (["compile", "nowhere.py::scaled"], "nowhere.py does not exist; name a kernel as FILE.py::FUNC"),
    (["compile", "kernels.py::nope"], "kernels.py has no 'nope'; its @pl.jit kernels are double_rows, plus_one, "
                                      "scaled, unshaped"),
    (["compile", "kernels.py"], "kernels.py: name the kernel as kernels.py::FUNC; its kernels are double_rows, "
                                "plus_one, scaled, unshaped"),
    (["run", "kernels.py::helper"], "kernels.py::helper is a function, not a @pl.jit kernel; decorate it with "
                                    "@pl.jit"),
    (["compile", "kernels.py::unshaped"], "unshaped: parameter 'x' is annotated pl.Tensor, without a shape and "
                                          "dtype"),
    (["run", "kernels.py::double_rows"], "double_rows: parameter 'x' (pl.Tensor[[ROWS, 64], pl.FP32]) has the "
                                         "dynamic dimension ROWS, so random inputs have no shape; give 'x' in "
                                         "--inputs F.npz"),
    (["run", "kernels.py::scaled", "--inputs", "none.npz"], "--inputs none.npz does not exist"),
    (["compile", "kernels.py::scaled", "--pipeline", "nope"], "no pipeline named 'nope'"),
    (["compile", "kernels.py::scaled", "--backend", "nob"], "no plugin provides backend 'nob'; the backends are "),
    (["compile", "kernels.py::scaled", "--plugin", "no/such/plugin"], "the plugin path 'no/such/plugin' does not "
                                                                     "exist"),
])
def test_mistakes_are_one_line_and_exit_status_2(work, capsys, args, message):
    status, out, err = pypto(capsys, *args)
    assert status == 2
    assert len(err) == 1 and err[0].startswith(f"pypto {args[0]}: ") and message in err[0], err


def test_npz_names_and_shapes_are_checked(work, capsys):
    np.savez(work / "wrong.npz", y=np.ones(3))
    assert pypto(capsys, "run", "kernels.py::scaled", "--inputs", "wrong.npz")[2] == [
        "pypto run: --inputs wrong.npz holds 'y', which is not a parameter of scaled(x, out, factor)"]
    np.savez(work / "wrong.npz", x=np.ones((8, 64)))
    assert pypto(capsys, "run", "kernels.py::scaled", "--inputs", "wrong.npz")[2] == [
        "pypto run: --inputs wrong.npz: 'x' has shape [8, 64] but the parameter is pl.Tensor[[16, 64], pl.FP32]"]


def test_a_file_that_fails_to_import_is_one_line_with_its_line_number(work):
    (work / "broken.py").write_text("import pypto.language as pl\n\nraise RuntimeError('not today')\n")
    exe = [sys.executable, "-m", "pypto.cli"]
    done = subprocess.run([*exe, "run", "broken.py::k"], capture_output=True, text=True, cwd=work)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == ["pypto run: cannot import broken.py: broken.py:3: RuntimeError: not today"]
