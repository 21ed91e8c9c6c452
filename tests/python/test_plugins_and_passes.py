"""Plugins, passes and pipelines from Python and from the `pypto` command."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pypto
from pypto import ir, passes, plugins

REPO = Path(__file__).resolve().parents[2]
INDEX = ir.ScalarType(ir.DataType.INDEX)


def test_the_shipped_pass_plugins_are_discovered():
    records = {r["name"]: r for r in plugins.discover()}
    assert {"simplify", "unroll_loops"} <= set(records)
    simplify = records["simplify"]
    assert simplify["kind"] == "pass"
    assert simplify["provides"] == ["Simplify"]
    assert Path(simplify["path"]).is_file()
    assert Path(simplify["manifest"]).name == "manifest.yaml"


def test_passes_list_names_the_providing_plugin():
    listed = {p["name"]: p["plugin"] for p in plugins.list_passes()}
    assert listed["Simplify"] == "simplify"
    assert listed["UnrollLoops"] == "unroll_loops"


def test_default_pipeline_unrolls_and_folds(tmp_path):
    i = ir.Var("i", INDEX)
    acc = ir.IterArg("acc", INDEX, ir.ConstInt(0))
    nxt, total = ir.Var("nxt", INDEX), ir.Var("total", INDEX)
    loop = ir.ForStmt(i, 0, 3, 1, [acc],
                      ir.SeqStmts([ir.AssignStmt(nxt, ir.BinaryExpr(ir.BinaryOp.Add, acc, i)), ir.YieldStmt([nxt])]),
                      [total], ir.ForKind.Unroll)
    fn = ir.Function("f", ir.FunctionType.Opaque, [], [], [INDEX], ir.SeqStmts([loop, ir.ReturnStmt([total])]))
    program = ir.Program("p", [fn])

    manager = passes.PassManager("default")
    names = manager.pass_names
    assert names.index("UnrollLoops") < names.index("Simplify")
    lowered = manager.run(program, dump_dir=tmp_path)

    body = lowered.get_function("f").body
    ret = body if isinstance(body, ir.ReturnStmt) else body.stmts[-1]
    assert isinstance(ret.values[0], ir.ConstInt) and ret.values[0].value == 0 + 1 + 2
    dumps = sorted(p.name for p in (tmp_path / "passes_dump").iterdir())
    assert dumps == ["00_input.py"] + [f"{i:02d}_{name}.py" for i, name in enumerate(names, start=1)]
    first_simplify = f"{names.index('Simplify') + 1:02d}_Simplify.py"
    assert "return 3" in (tmp_path / "passes_dump" / first_simplify).read_text()


def test_unknown_pipeline_and_pass_errors(tmp_path):
    with pytest.raises(pypto.PipelineError):
        passes.PassManager("no_such_pipeline")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\npasses:\n  - Simplify\n  - NoSuchPass\n")
    with pytest.raises(pypto.PipelineError, match=r"bad\.yaml:4.*unknown pass 'NoSuchPass'"):
        passes.PassManager(str(bad))


def test_pass_properties_name_what_a_pass_requires_and_produces():
    assert passes.pass_properties("AllocateMemoryAddr") == {
        "required": ["HasMemRefs"], "produced": ["AllocatedMemoryAddr"], "invalidated": []}
    assert passes.pass_properties("InlineFunctions")["required"] == []
    with pytest.raises(pypto.PipelineError, match="NoSuchPass"):
        passes.pass_properties("NoSuchPass")


def test_run_takes_the_platform_by_name():
    program = ir.Program("p", [ir.Function("f", ir.FunctionType.Opaque, [], [], [], ir.SeqStmts([]))])
    manager = passes.PassManager("default")
    assert manager.run(program, platform="a5sim") is not None
    with pytest.raises(ValueError, match="a2a3sim"):
        manager.run(program, platform="no_such_platform")


def test_plugin_search_path_errors_name_the_manifest(tmp_path):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "manifest.yaml").write_text("name: broken\nkind: pass\nversion: 1.0\nabi: 4\n"
                                          "library: libbroken.so\nprovides: [Broken]\n")
    plugins.add_search_path(tmp_path)
    assert "broken" in {r["name"] for r in plugins.discover()}
    with pytest.raises(pypto.PluginError, match=r"libbroken\.so"):
        plugins.load("broken")


def _pypto(*args, env=None):
    exe = Path(sys.executable).with_name("pypto")
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, cwd="/")


def test_cli_lists_plugins_and_passes():
    out = _pypto("plugins")
    assert out.returncode == 0, out.stderr
    header = out.stdout.splitlines()[0].split()
    assert header == ["NAME", "KIND", "VERSION", "PATH"]
    assert any(line.startswith("simplify") and " pass " in line for line in out.stdout.splitlines())
    out = _pypto("passes")
    assert out.returncode == 0, out.stderr
    assert any(line.startswith("UnrollLoops") and "[unroll_loops]" in line for line in out.stdout.splitlines())


def test_cli_reports_a_broken_plugin_path_without_a_traceback(tmp_path):
    (tmp_path / "manifest.yaml").write_text("name: [unclosed\n")
    env = dict(os.environ, PYPTO_PLUGIN_PATH=str(tmp_path))
    out = _pypto("plugins", env=env)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "manifest.yaml" in out.stderr


def test_cli_ops_by_namespace():
    out = _pypto("ops", "--namespace", "array")
    assert out.returncode == 0, out.stderr
    assert [line.split("(")[0] for line in out.stdout.splitlines()] == [
        "array.create", "array.get_element", "array.update_element"]


def test_import_works_from_any_directory():
    out = subprocess.run([sys.executable, "-c", "import pypto; print(pypto.__version__)"],
                         capture_output=True, text=True, cwd="/")
    assert out.returncode == 0 and out.stdout.strip() == pypto.__version__


def test_foundation_tour_runs():
    out = subprocess.run([sys.executable, str(REPO / "examples" / "foundation_tour.py")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "@pl.program" in out.stdout
    assert "pl.tile.muls(e, 2.0)" in out.stdout
    assert "waste" not in out.stdout.split("== After the default pipeline")[1]
    lowered = out.stdout.split("== A tensor-level kernel through the default pipeline")[1]
    assert "for row, (out_iter,) in pl.range(0, 2048, " in lowered
    assert "pl.MemRef(" in lowered and "pl.tile.exp(" in lowered


def _backend_manifest(folder, name, provides):
    folder.mkdir(parents=True)
    (folder / "manifest.yaml").write_text(
        f"name: {name}\nkind: backend\nversion: 1.0.0\nabi: 4\nlibrary: lib{name}.so\n"
        f"provides: [{', '.join(provides)}]\ndescription: {name} for the test\n")


def test_list_backends_reads_manifests_without_loading(tmp_path, monkeypatch):
    _backend_manifest(tmp_path / "listing_a", "listing_a", ["ListingA", "ListingB"])
    with monkeypatch.context() as m:
        m.setenv("PYPTO_PLUGIN_PATH", str(tmp_path))
        listed = {b["name"]: b for b in plugins.list_backends()}
        assert listed["ListingA"] == {"name": "ListingA", "description": "listing_a for the test",
                                      "plugin": "listing_a", "loaded": False}
        assert listed["ListingB"]["plugin"] == "listing_a"
        assert "Simplify" not in listed
        assert not plugins.is_loaded("listing_a")
        # Asking for what it generates loads it; its library is missing, which the error says.
        with pytest.raises(pypto.PluginError, match=r"liblisting_a\.so' does not exist"):
            plugins.backend_function_types("ListingA")
        with pytest.raises(ValueError, match=r"unknown backend 'NoSuchBackend'; known backends: .*ListingA"):
            plugins.backend_function_types("NoSuchBackend")
    assert "ListingA" not in {b["name"] for b in plugins.list_backends()}


def test_cli_lists_backends(tmp_path):
    _backend_manifest(tmp_path / "listing_cli", "listing_cli", ["ListingCli"])
    env = dict(os.environ, PYPTO_PLUGIN_PATH=str(tmp_path))
    out = _pypto("backends", env=env)
    assert out.returncode == 0, out.stderr
    assert "ListingCli  listing_cli for the test  [listing_cli]" in out.stdout.splitlines()
    # -v loads the plugin to ask for its function types; the missing library is reported plainly.
    out = _pypto("backends", "-v", env=env)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert "pypto backends: " in out.stderr and "liblisting_cli.so' does not exist" in out.stderr



def test_a_file_error_prints_its_message_and_is_an_os_error():
    missing = "/no/such/folder/manifest.yaml"
    with pytest.raises(pypto.FileError) as caught:
        plugins.load_manifest(missing)
    assert isinstance(caught.value, OSError)
    assert str(caught.value) == f"plugin manifest '{missing}' does not exist or is not a file"
