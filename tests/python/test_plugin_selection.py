"""Choosing plugins from Python: pypto.plugins (list, search paths, explicit loading) and
RunConfig(backend=, pipeline=, plugins=[...]) with the JIT cache keyed on them.

Plugins stay loaded for the whole process, so every plugin here has a name of its own.
"""

import json
from pathlib import Path

import pytest
import torch

import pypto
import pypto.language as pl
from plugin_builder import build_listing_backend, build_tag_pass
from pypto import passes, plugins
from pypto.jit import CompiledProgram
from pypto.runtime import RunConfig



@pl.jit
def double_rows(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.mul(pl.load(x, [0, 0], [32, 64]), 2.0), [0, 0], out)
    return out


def _pipeline(path: Path, *extra: str) -> str:
    """The default pipeline's passes, then the extra entries (YAML flow text)."""
    default = [step["pass"] for step in passes.load_pipeline("default")["passes"]]
    entries = "\n".join(f"  - {p}" for p in [*default, *extra])
    path.write_text(f"name: {path.stem}\ninput_properties: []\npasses:\n{entries}\n")
    return str(path)


@pytest.fixture(scope="module")
def plugin_root(tmp_path_factory):
    return tmp_path_factory.mktemp("selection_plugins")


@pytest.fixture(autouse=True)
def build_dir(tmp_path, monkeypatch):
    """Compile output folders go under this test's tmp_path, not the working directory."""
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


# ------------------------------------------------------------ pypto.plugins


def test_load_by_folder_or_manifest_returns_what_the_plugin_is(plugin_root):
    folder = build_tag_pass(plugin_root / "sel_by_path", "sel_by_path", "SelByPath")
    assert not plugins.is_loaded("sel_by_path")
    record = plugins.load(folder)
    assert plugins.is_loaded("sel_by_path")
    assert {k: record[k] for k in ("name", "kind", "version", "provides", "loaded")} == {
        "name": "sel_by_path", "kind": "pass", "version": "1.0.0", "provides": ["SelByPath"], "loaded": True}
    assert Path(record["path"]) == folder / "libsel_by_path.so"
    # Its manifest, as text, names the same plugin; loading it again does nothing.
    assert plugins.load(str(folder / "manifest.yaml"))["manifest"] == record["manifest"]
    assert {"name": "SelByPath", "description": "appends a tag to the program's name", "plugin": "sel_by_path"} \
        in plugins.list_passes()
    assert record in plugins.discover()


def test_a_search_path_makes_plugins_loadable_by_name(plugin_root):
    shelf = plugin_root / "shelf"
    build_tag_pass(shelf / "sel_on_shelf", "sel_on_shelf", "SelOnShelf")
    assert "sel_on_shelf" not in {r["name"] for r in plugins.discover()}
    with pytest.raises(pypto.PluginError, match=r"no plugin named 'sel_on_shelf'; searched .*PYPTO_PLUGIN_PATH"):
        plugins.load("sel_on_shelf")
    plugins.add_search_path(shelf)
    assert shelf in plugins.search_paths()
    found = {r["name"]: r for r in plugins.discover()}["sel_on_shelf"]
    assert (found["kind"], found["loaded"], found["provides"]) == ("pass", False, ["SelOnShelf"])
    assert plugins.load("sel_on_shelf")["loaded"] is True


def test_a_name_is_a_name_and_anything_with_a_slash_or_yaml_is_a_path():
    assert not plugins.is_path("my_pass")
    assert plugins.is_path("./my_pass") and plugins.is_path("plugins/my_pass")
    assert plugins.is_path("manifest.yaml") and plugins.is_path(Path("my_pass"))


def test_a_wrong_plugin_path_says_what_to_give(plugin_root, tmp_path):
    with pytest.raises(pypto.PluginError, match=r"the plugin path '.*nowhere' does not exist; give a plugin's "
                                                r"folder \(the one holding manifest\.yaml\) or its manifest\.yaml"):
        plugins.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(pypto.PluginError, match=r"'.*empty' holds no manifest\.yaml; give a plugin's folder"):
        plugins.load_path(tmp_path / "empty")
    # A folder of plugin folders (a build's plugins/) names them and how to search it.
    build_tag_pass(tmp_path / "built" / "sel_in_build", "sel_in_build", "SelInBuild")
    with pytest.raises(pypto.PluginError, match=r"its subfolder sel_in_build is a plugin; give one of them .*"
                                                r"add_search_path or PYPTO_PLUGIN_PATH"):
        plugins.load(tmp_path / "built")


def test_loading_a_broken_plugin_is_the_hosts_error_naming_the_file(tmp_path):
    (tmp_path / "manifest.yaml").write_text("name: sel_broken\nkind: pass\nversion: 1.0.0\nabi: 4\n"
                                            "library: libsel_broken.so\nprovides: [SelBroken]\n")
    with pytest.raises(pypto.PluginError, match=r"libsel_broken\.so' does not exist"):
        plugins.load(tmp_path)
    (tmp_path / "manifest.yaml").write_text("name: sel_broken\nkind: pass\nversion: 1.0.0\nabi: 1\n"
                                            "library: libsel_broken.so\nprovides: [SelBroken]\n")
    with pytest.raises(pypto.PluginError, match=r"manifest\.yaml.*declares plugin ABI 1 but this PyPTO .* has "
                                                r"plugin ABI 4"):
        plugins.load(tmp_path / "manifest.yaml")
    assert not plugins.is_loaded("sel_broken")


# ------------------------------------------------------------------ RunConfig


def test_run_config_backend_and_plugins_are_checked():
    config = RunConfig()
    assert (config.backend, config.plugins) == ("npu", ())
    assert RunConfig(plugins=["a/b", Path("c")]).plugins == ("a/b", "c")
    with pytest.raises(TypeError, match=r"got the single path 'my_plugin'; write plugins=\['my_plugin'\]"):
        RunConfig(plugins="my_plugin")
    with pytest.raises(TypeError, match=r"RunConfig.plugins\[1\] must be the path .*got int 3"):
        RunConfig(plugins=["a", 3])
    with pytest.raises(TypeError, match=r"RunConfig.backend must be a backend name such as 'npu'"):
        RunConfig(backend="")


def test_compile_key_changes_with_backend_and_plugins(tmp_path, monkeypatch):
    base = dict(RunConfig().compile_key())
    assert base["backend"] == "npu" and base["plugins"] == ()
    assert dict(RunConfig(backend="mine").compile_key())["backend"] == "mine"
    monkeypatch.chdir(tmp_path)
    # A relative plugin path is keyed as the folder it means here.
    assert dict(RunConfig(plugins=["p"]).compile_key())["plugins"] == (str(tmp_path / "p"),)
    assert RunConfig(plugins=["p"]).compile_key() != RunConfig(plugins=["q"]).compile_key()
    assert RunConfig(plugins=["p"]).compile_key() == RunConfig(plugins=[str(tmp_path / "p")]).compile_key()


def test_a_pipeline_runs_a_pass_from_run_config_plugins_with_its_options(plugin_root, tmp_path):
    folder = build_tag_pass(plugin_root / "sel_tag", "sel_tag", "SelTag")
    pipeline = _pipeline(tmp_path / "tagged.yaml", "{name: SelTag, options: {tag: release}}")
    assert not plugins.is_loaded("sel_tag")
    lowered = double_rows.lower(config=RunConfig(pipeline=pipeline, plugins=[folder]))
    assert plugins.is_loaded("sel_tag")
    assert lowered.name == "_jit_double_rows_release"
    assert lowered.get_function("double_rows_incore_0") is not None


def test_the_jit_cache_keys_on_plugins_and_pass_options(plugin_root, tmp_path):
    folder = build_tag_pass(plugin_root / "sel_keyed", "sel_keyed", "SelKeyed")
    alpha = _pipeline(tmp_path / "alpha.yaml", "{name: SelKeyed, options: {tag: alpha}}")
    beta = _pipeline(tmp_path / "beta.yaml", "{name: SelKeyed, options: {tag: beta}}")
    double_rows.clear_cache()
    first = double_rows.compile(config=RunConfig(pipeline=alpha, plugins=[folder]))
    again = double_rows.compile(config=RunConfig(pipeline=alpha, plugins=[folder]))
    other = double_rows.compile(config=RunConfig(pipeline=beta, plugins=[folder]))
    assert again is first and other is not first
    assert (first.program.name, other.program.name) == ("_jit_double_rows_alpha", "_jit_double_rows_beta")
    # The same pipeline with another plugins list is another program.
    shelf_copy = double_rows.compile(config=RunConfig(pipeline=alpha, plugins=[folder / "manifest.yaml"]))
    assert shelf_copy is not first
    assert double_rows.cache_info() == (1, 3, 3)
    x, out = torch.randn(32, 64), torch.zeros(32, 64)
    double_rows(x, out, config=RunConfig(pipeline=alpha, plugins=[folder]))
    torch.testing.assert_close(out, 2 * x)


def test_an_unknown_pass_lists_the_passes_and_how_to_add_a_plugin(tmp_path):
    pipeline = _pipeline(tmp_path / "missing.yaml", "SelNotLoaded")
    with pytest.raises(pypto.PipelineError, match=r"missing\.yaml:\d+:\d+: unknown pass 'SelNotLoaded'; known "
                                                  r"passes: .*Simplify.*PYPTO_PLUGIN_PATH"):
        double_rows.lower(config=RunConfig(pipeline=pipeline))


def test_an_unknown_pipeline_lists_the_pipelines():
    with pytest.raises(pypto.PipelineError, match=r"no pipeline named 'nope' .*the pipelines are debug, default"):
        double_rows.lower(config=RunConfig(pipeline="nope"))


def test_an_unknown_backend_lists_the_backends_and_how_to_add_a_plugin():
    with pytest.raises(ValueError, match=r"RunConfig\(backend='nob'\): no plugin provides backend 'nob'; the "
                                         r"backends are .*host, npu.*RunConfig\(plugins=\[\.\.\.\]\).*"
                                         r"PYPTO_PLUGIN_PATH"):
        double_rows.lower(config=RunConfig(backend="nob"))
    with pytest.raises(ValueError, match=r"backend 'host' generates code for Orchestration, not for kernels"):
        double_rows.lower(config=RunConfig(backend="host"))
    with pytest.raises(ValueError, match=r"RunConfig\(backend='torch'\): backend 'torch' has no toolchain for "
                                         r"platform 'a2a3sim'.*backends that build for 'a2a3sim': npu\..*"
                                         r"pypto.debug.torch_codegen"):
        double_rows.lower(config=RunConfig(backend="torch"))


def test_a_backend_from_run_config_plugins_generates_the_kernels(plugin_root, tmp_path):
    folder = build_listing_backend(plugin_root / "sel_listing", "sel_listing", "SelListing", "{a2a3: ascend}")
    config = RunConfig(platform="a2a3", backend="SelListing", plugins=[folder], save_kernels_dir=str(tmp_path))
    compiled = double_rows.compile(config=config)
    assert compiled.backend == "SelListing" and compiled.toolchain == "ascend"
    assert (tmp_path / "report" / "kernels.txt").read_text() == "double_rows_incore_0 on a2a3\n"
    assert compiled.kernel_files == [] and len(compiled.orchestration_files) == 1
    meta = json.loads((tmp_path / "compiled_meta.json").read_text())
    assert (meta["backend"], meta["plugins"]) == ("SelListing", [str(folder)])
    assert CompiledProgram.from_dir(tmp_path).backend == "SelListing"
    # Its manifest names no toolchain for the simulator, and the error says what to add.
    with pytest.raises(ValueError, match=r"backend 'SelListing' has no toolchain for platform 'a2a3sim'.*"
                                         r"toolchains: \{a2a3sim: <toolchain>\}"):
        double_rows.compile(config=RunConfig(backend="SelListing", plugins=[folder]))
