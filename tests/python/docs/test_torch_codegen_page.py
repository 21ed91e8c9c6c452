"""The python blocks of docs/torch-codegen.md run, in order, as one module, and print what the page says."""

import re

from test_execution_pages import DOCS, run_page


def test_torch_codegen_page(tmp_path, monkeypatch, capsys):
    run_page("torch-codegen.md", tmp_path, monkeypatch)
    printed = capsys.readouterr().out
    assert '"""PyTorch model of the PyPTO program \'_jit_add_relu\'' in printed
    assert "_jit_add_relu_torch.py" in printed
    differences = re.findall(r"max \|sim - script\| = (\S+)", printed)
    assert len(differences) == 2 and all(float(d) == 0.0 for d in differences), printed
    assert "bisect ok: True None" in printed


def test_torch_codegen_page_links_resolve():
    text = (DOCS / "torch-codegen.md").read_text()
    for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", text):
        assert (DOCS / target).is_file(), f"torch-codegen.md links {target}"
