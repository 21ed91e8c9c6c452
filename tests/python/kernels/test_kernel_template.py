"""sdk/templates/kernel builds out of tree against the installed SDK and its kernel runs via PYPTO_PLUGIN_PATH."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pypto import plugins

TEMPLATE = Path(__file__).resolve().parents[3] / "sdk" / "templates" / "kernel"


def run(command: list[str], **kwargs) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, **kwargs)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_the_kernel_template_builds_out_of_tree_and_its_kernel_runs(tmp_path):
    project = tmp_path / "my_kernels"
    shutil.copytree(TEMPLATE, project)
    prefix = plugins.core_library_dir().parent
    run(["cmake", "-S", str(project), "-B", str(project / "build"), f"-DCMAKE_PREFIX_PATH={prefix}"])
    run(["cmake", "--build", str(project / "build")])
    staged = project / "build" / "plugins" / "my_kernels"
    assert (staged / "manifest.yaml").is_file() and (staged / "kernels" / "axpy.cpp").is_file()
    env = {**os.environ, "PYPTO_PLUGIN_PATH": str(project / "build" / "plugins")}
    result = run([sys.executable, "example.py"], cwd=project, env=env)
    assert result.stdout.strip().endswith("OK")
