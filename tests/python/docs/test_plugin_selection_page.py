"""docs/plugin-selection.md: its python blocks run, in order, as one module, its `pypto` commands run, and
what they print is what the page shows."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from docs_manual import REPO, blocks
from plugin_builder import build_plugin
from pypto import passes


def _blocks(language: str, page: str = "plugin-selection.md") -> list[str]:
    return [block.code for block in blocks(page) if block.lang == language]


def _build_tag_program(folder: Path) -> None:
    """The TagProgram pass exactly as docs/plugins.md writes it."""
    source = next(b for b in _blocks("cpp", "plugins.md") if 'PYPTO_PLUGIN("tag_program"' in b)
    build_plugin(folder, "tag_program", source, kind="pass", provides=["TagProgram"])


def _masked(line: str, work: Path) -> str:
    """A printed line with the example's home folder, numbers and timestamps made comparable."""
    line = line.replace("/home/me", str(work))
    return re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", line)


def _any_backends(line: str) -> str:
    return re.sub(r"the backends are [^.]*\.", "the backends are ....", line)


def test_page_examples_run_and_print_what_the_page_shows(tmp_path, monkeypatch, capsys):
    _build_tag_program(tmp_path / "build" / "plugins" / "tag_program")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path / "build_output"))
    module_path = tmp_path / "plugin_selection_page_examples.py"
    module_path.write_text("\n\n".join(_blocks("python")))
    spec = importlib.util.spec_from_file_location(module_path.stem, module_path)
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, module_path.stem, module)  # kernels find their source through it
    spec.loader.exec_module(module)
    printed = capsys.readouterr().out.splitlines()
    assert printed[:2] == ["backend 0.1.0 ['npu']", "libnpu.so"]
    assert "tag_program pass ['TagProgram'] True" in printed
    assert "_jit_scaled_exp_release" in printed
    texts = _blocks("text")
    # The load error and the backend error word for word, but for the backends other tests have loaded.
    for shown in (texts[0], texts[1]):
        assert _any_backends(shown.strip()) in [_any_backends(line) for line in printed]


def test_page_commands_run_and_print_what_the_page_shows(tmp_path):
    _build_tag_program(tmp_path / "build" / "plugins" / "tag_program")
    # The page's tagged.yaml: the default passes, then TagProgram.
    default = [step["pass"] for step in passes.load_pipeline("default")["passes"]]
    (tmp_path / "tagged.yaml").write_text("name: tagged\ninput_properties: []\npasses:\n"
                                          + "".join(f"  - {name}\n" for name in default)
                                          + "  - {name: TagProgram, options: {tag: release}}\n")
    commands = [line.split() for line in _blocks("sh")[0].splitlines() if line.startswith("pypto ")]
    shown = _blocks("text")[2].splitlines()
    env = dict(os.environ, PYPTO_PROG_BUILD_DIR=str(tmp_path / "build_output"))
    exe = str(Path(sys.executable).with_name("pypto"))
    printed = []
    for command in commands:
        args = [str(REPO / a) if a.startswith("examples/") else a for a in command[1:]]
        done = subprocess.run([exe, *args], capture_output=True, text=True, cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        printed += done.stdout.splitlines()
    assert [_masked(line, tmp_path) for line in printed] == [_masked(line, tmp_path) for line in shown]
    assert (tmp_path / "swiglu.npz").is_file() and (tmp_path / "relu_a5" / "compiled_meta.json").is_file()
