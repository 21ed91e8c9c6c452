"""What docs/torch-codegen.md prints: the script, its file, zero differences and a clean bisection."""

import re

import pytest

from docs_manual import run_page

# run_page runs a page once per worker and the tests of this group share the runs: one worker takes them all.
pytestmark = pytest.mark.xdist_group("manual")


def test_torch_codegen_page(tmp_path_factory):
    printed = run_page("torch-codegen.md", tmp_path_factory).printed
    assert '"""PyTorch model of the PyPTO program \'_jit_add_relu\'' in printed
    assert "_jit_add_relu_torch.py" in printed
    differences = re.findall(r"max \|sim - script\| = (\S+)", printed)
    assert len(differences) == 2 and all(float(d) == 0.0 for d in differences), printed
    assert "bisect ok: True None" in printed

