"""The SDK's starter projects (sdk/templates/pass, sdk/templates/backend), built out of tree against the
installed CMake package the way a third party builds them, then used from @pl.jit.

Plugins stay loaded for the whole process: this module is the only one that loads the templates' plugins
(fold_tile_identities, program_stats).
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml
from docs_manual import blocks

import pypto.language as pl
from pypto import ir, plugins
from pypto.runtime import RunConfig

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = REPO / "sdk" / "templates"
SDK_CMAKE_DIR = Path(plugins.core_library_dir()) / "cmake" / "PyPTO"  # what `pypto cmake-dir` prints


def _tools() -> tuple[str, str]:
    """cmake and the C++ compiler; the module is skipped where either is missing."""
    cmake = shutil.which("cmake")
    cxx = shutil.which(os.environ.get("CXX", "c++"))
    if cmake is None or cxx is None:
        pytest.skip("building the SDK templates needs cmake and a C++ compiler ($CXX or c++)")
    return cmake, cxx


def _cmake(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    cmake, cxx = _tools()
    return subprocess.run([cmake, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "CXX": cxx})


def _configure(source: Path, build: Path) -> subprocess.CompletedProcess:
    """The README's first command, with warnings as errors so the templates stay warning-free."""
    return _cmake("-S", str(source), "-B", str(build), f"-DCMAKE_PREFIX_PATH={SDK_CMAKE_DIR}",
                  "-DCMAKE_CXX_FLAGS=-Werror")


def _build_template(name: str, root: Path) -> Path:
    """Configures and builds sdk/templates/<name> in root/<name>; returns its plugins/ folder."""
    build = root / name
    configured = _configure(TEMPLATES / name, build)
    assert configured.returncode == 0, f"configuring the {name} template failed:\n{configured.stderr}"
    built = _cmake("--build", str(build))
    assert built.returncode == 0, f"building the {name} template failed:\n{built.stdout}\n{built.stderr}"
    return build / "plugins"


@pytest.fixture(scope="session")
def template_plugins(tmp_path_factory) -> Path:
    """Both templates built once per session; the folder of their plugin folders (for PYPTO_PLUGIN_PATH)."""
    _tools()
    assert (SDK_CMAKE_DIR / "PyPTOConfig.cmake").is_file(), f"no installed CMake package at {SDK_CMAKE_DIR}"
    root = tmp_path_factory.mktemp("sdk_templates")
    folders = {_build_template(name, root) for name in ("pass", "backend")}
    shared = root / "plugins"
    shared.mkdir()
    for folder in folders:  # one search folder holding both, as a project with both plugins would have
        for plugin in folder.iterdir():
            (shared / plugin.name).symlink_to(plugin)
    return shared


@pytest.fixture(autouse=True)
def build_output(tmp_path, monkeypatch):
    """Compile output folders go under this test's tmp_path, not the working directory."""
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))


def _run_script(script: Path, *args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    """Runs a template's script as its README says; returns what it printed."""
    ran = subprocess.run([sys.executable, str(script), *args], cwd=cwd, capture_output=True, text=True,
                         env={**os.environ, "PYPTO_PROG_BUILD_DIR": str(cwd / "build_output"), **(env or {})})
    assert ran.returncode == 0, f"{script.name} failed:\n{ran.stdout}\n{ran.stderr}"
    return ran.stdout


def _manifest(folder: Path) -> dict:
    return yaml.safe_load((folder / "manifest.yaml").read_text())


@pl.jit
def scaled_sum(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [32, 64])
        pl.store(pl.add(pl.mul(t, 1.0), pl.sub(pl.add(t, 0.0), 0.0)), [0, 0], out)
    return out


def _tile_ops(program: ir.Program) -> list[str]:
    return re.findall(r"pl\.tile\.(\w+)\(", ir.as_python(program))


# ------------------------------------------------------------ the pass template


def test_the_pass_template_generates_its_manifest(template_plugins):
    folder = template_plugins / "fold_tile_identities"
    assert _manifest(folder) == {
        "name": "fold_tile_identities", "kind": "pass", "version": "0.1.0", "abi": 4,
        "library": "libfold_tile_identities.so", "provides": ["FoldTileIdentities"],
        "description": "Removes tile ops that return their operand: x*1, x/1, x-0 (and x+0)"}
    assert (folder / "libfold_tile_identities.so").is_file()


def test_the_pass_templates_printed_ir_cases_pass(template_plugins, tmp_path):
    printed = _run_script(TEMPLATES / "pass" / "check_cases.py", str(template_plugins / "fold_tile_identities"),
                          cwd=tmp_path)
    assert printed.splitlines() == ["add_zero: ok", "identities: ok"]


def test_the_pass_runs_in_a_pipeline_with_its_option(template_plugins, tmp_path):
    folder = template_plugins / "fold_tile_identities"
    pipeline = TEMPLATES / "pass" / "pipeline.yaml"
    without_add_zero = tmp_path / "no_add_zero.yaml"
    without_add_zero.write_text(pipeline.read_text().replace("fold_add_zero: true", "fold_add_zero: false"))

    assert {"muls", "adds", "subs"} <= set(_tile_ops(scaled_sum.lower(config=RunConfig())))
    folded = _tile_ops(scaled_sum.lower(config=RunConfig(pipeline=str(pipeline), plugins=[folder])))
    assert not {"muls", "adds", "subs"} & set(folded) and folded.count("add") == 1
    # With the option off, x + 0.0 on a float tile stays (it is not exact for -0.0); the rest still folds.
    kept = _tile_ops(scaled_sum.lower(config=RunConfig(pipeline=str(without_add_zero), plugins=[folder])))
    assert "adds" in kept and not {"muls", "subs"} & set(kept)

    x, out = torch.randn(32, 64), torch.zeros(32, 64)
    scaled_sum(x, out, config=RunConfig(pipeline=str(pipeline), plugins=[folder]))
    torch.testing.assert_close(out, x + x)


def test_the_pass_template_example_finds_the_plugin_on_pypto_plugin_path(template_plugins, tmp_path):
    printed = _run_script(TEMPLATES / "pass" / "example.py", cwd=tmp_path,
                          env={"PYPTO_PLUGIN_PATH": str(template_plugins)})
    default, folded, result = printed.splitlines()
    assert "pl.tile.muls" in default and "pl.tile.adds" in default
    assert folded.startswith("pipeline.yaml:") and "muls" not in folded and "adds" not in folded
    assert result == "result matches torch"


# ------------------------------------------------------------ the backend template


@pl.jit
def softmax(x: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    for r in pl.range(0, 64, 32):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[32, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.exp(pl.row_expand_sub(t, m))
            s: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_div(e, s), [r, 0], out)
    return out


def _vec_capacity(platform: str) -> int:
    description = yaml.safe_load((Path(plugins.data_dir()) / "platforms" / f"{platform}.yaml").read_text())
    return description["memory"]["Vec"]["capacity"]


def test_the_backend_template_generates_its_manifest_with_toolchains(template_plugins):
    manifest = _manifest(template_plugins / "program_stats")
    assert manifest["kind"] == "backend" and manifest["provides"] == ["program_stats"]
    assert manifest["toolchains"] == {"a2a3": "ascend", "a5": "ascend"}
    assert manifest["library"] == "libprogram_stats.so" and manifest["abi"] == 4


def test_the_backend_reports_ops_and_memory_of_a_real_program(template_plugins, tmp_path):
    config = RunConfig(platform="a2a3", backend="program_stats", plugins=[template_plugins / "program_stats"],
                       save_kernels_dir=str(tmp_path / "out"))
    compiled = softmax.compile(config=config)
    assert compiled.backend == "program_stats" and compiled.kernel_files == []
    report = (compiled.report_dir / "program_stats.txt").read_text()
    lines = report.splitlines()
    assert lines[0] == "program _jit_softmax for a2a3"
    assert "kernel softmax_incore_0 (InCore, on AIV)" in lines
    ops = dict(re.findall(r"^    (tile\.\w+) +(\d+)$", report, flags=re.M))
    for op in ("load", "exp", "row_max", "row_sum", "row_expand_sub", "row_expand_div", "store"):
        assert ops[f"tile.{op}"] == "1", report
    vec = re.search(r"^    Vec +(\d+) buffers +(\d+) of (\d+) bytes \([\d.]+%\) +(\d+) tiles$", report, flags=re.M)
    assert vec, report
    buffers, used, capacity, tiles = map(int, vec.groups())
    assert buffers == int(ops["tile.alloc"]) and 0 < used <= capacity == _vec_capacity("a2a3") and tiles >= buffers


def test_the_backend_template_example_finds_the_plugin_on_pypto_plugin_path(template_plugins, tmp_path):
    printed = _run_script(TEMPLATES / "backend" / "example.py", cwd=tmp_path,
                          env={"PYPTO_PLUGIN_PATH": str(template_plugins)})
    assert "program _jit_softmax for a2a3" in printed
    assert "kernel softmax_incore_0 (InCore, on AIV)" in printed and re.search(r"tile\.exp +1", printed)


# ------------------------------------------------------------ the CMake functions' manifest checks


def _project(folder: Path, plugin_call: str, manifest: str | None = None) -> Path:
    """A one-plugin project around the pass template's source, with its own plugin call and manifest."""
    folder.mkdir()
    shutil.copy(TEMPLATES / "pass" / "fold_tile_identities.cpp", folder)
    (folder / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(check VERSION 1.2.3 LANGUAGES CXX)\n"
        f"find_package(PyPTO REQUIRED)\n{plugin_call}\n")
    if manifest is not None:
        (folder / "manifest.yaml").write_text(manifest)
    return folder


HAND_WRITTEN = ("name: fold_tile_identities\nkind: pass\nversion: 1.0.0\nabi: 4\n"
                "library: libfold_tile_identities.so\nprovides: [FoldTileIdentities]\n")


def _configure_error(project: Path) -> str:
    """The configure step's error, one line (CMake wraps long messages)."""
    configured = _configure(project, project / "build")
    assert configured.returncode != 0, f"configuring {project.name} should have failed"
    return " ".join(configured.stderr.split())


def test_a_hand_written_manifest_that_matches_is_copied(tmp_path):
    project = _project(tmp_path / "good", "pypto_add_pass_plugin(fold_tile_identities SOURCES fold_tile_identities.cpp)",
                       HAND_WRITTEN)
    configured = _configure(project, project / "build")
    assert configured.returncode == 0, configured.stderr
    assert (project / "build/plugins/fold_tile_identities/manifest.yaml").read_text() == HAND_WRITTEN


@pytest.mark.parametrize("field, wrong, expected, reason", [
    ("abi", "1", "4", "this PyPTO (0.1.0) has plugin ABI 4"),
    ("library", "libfold.so", "libfold_tile_identities.so", "the library this builds is libfold_tile_identities.so"),
    ("kind", "backend", "pass", "pypto_add_plugin was called with KIND pass"),
    ("name", "folder", "fold_tile_identities", "the plugin is built as target 'fold_tile_identities'"),
])
def test_a_hand_written_manifest_that_disagrees_stops_the_configure_step(tmp_path, field, wrong, expected, reason):
    manifest = re.sub(rf"^{field}: .*$", f"{field}: {wrong}", HAND_WRITTEN, flags=re.M)
    project = _project(tmp_path / "bad", "pypto_add_pass_plugin(fold_tile_identities SOURCES fold_tile_identities.cpp)",
                       manifest)
    error = _configure_error(project)
    assert (f"pypto_add_plugin(fold_tile_identities): {project / 'manifest.yaml'} declares '{field}: {wrong}' "
            f"but {reason}") in error
    assert f"set '{field}: {expected}' in the manifest" in error


def test_the_wrappers_refuse_contradictory_arguments(tmp_path):
    both = _project(tmp_path / "both", "pypto_add_pass_plugin(fold_tile_identities SOURCES fold_tile_identities.cpp "
                                       "PROVIDES FoldTileIdentities MANIFEST manifest.yaml)", HAND_WRITTEN)
    assert "give either MANIFEST (a hand-written manifest) or PROVIDES (a generated one), not both" in \
        _configure_error(both)
    toolchain = _project(tmp_path / "toolchain", "pypto_add_backend_plugin(fold_tile_identities SOURCES "
                                                 "fold_tile_identities.cpp PROVIDES x TOOLCHAINS a2a3:ascend)")
    assert "TOOLCHAINS entry 'a2a3:ascend' is not platform=toolchain (e.g. a2a3sim=simulator)" in \
        _configure_error(toolchain)


# ------------------------------------------------------------ docs/writing-a-plugin.md, as the page shows it

PAGE = REPO / "docs" / "writing-a-plugin.md"


def _page_blocks(language: str) -> list[str]:
    return [block.code for block in blocks(PAGE.name) if block.lang == language]


def test_writing_a_plugin_md_pass_walkthrough_runs_and_prints_what_the_page_shows(tmp_path):
    """The page's ```sh blocks, in order in one shell (its `cd my_pass` holds for the blocks after it): copy the
    pass template, build it, check its cases, run example.py; what they print is the page's first two ```text
    blocks."""
    _tools()
    commands = _page_blocks("sh")
    assert commands[0].startswith("cp -r ") and "cmake --build build" in commands[1]
    venv_bin = Path(sys.executable).parent
    done = subprocess.run(["bash", "-e", "-c", "\n".join(commands)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PATH": f"{venv_bin}{os.pathsep}{os.environ['PATH']}",
                               "PYPTO_PROG_BUILD_DIR": str(tmp_path / "build_output")})
    assert done.returncode == 0, f"the page's commands failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "my_pass" / "build" / "plugins" / "fold_tile_identities" / "manifest.yaml").is_file()
    cases, example = _page_blocks("text")[:2]
    assert cases.strip() in done.stdout
    assert example.strip() in done.stdout


def test_writing_a_plugin_md_backend_block_prints_the_report_the_page_shows(template_plugins, tmp_path,
                                                                             monkeypatch, capsys):
    """The page's ```python block that compiles `softmax` (the template example's kernel) with the program_stats
    backend from build/plugins/, run as written; it prints the page's report."""
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "plugins").symlink_to(template_plugins)
    monkeypatch.chdir(tmp_path)
    block = next(b for b in _page_blocks("python") if 'backend="program_stats"' in b)
    exec(compile(block, str(PAGE), "exec"), {"RunConfig": RunConfig, "softmax": softmax})
    assert capsys.readouterr().out.strip() == _page_blocks("text")[2].strip()
