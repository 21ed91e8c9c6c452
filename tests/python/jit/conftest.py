import sys
import types

import pytest
from fake_parser import FakeParser


@pytest.fixture
def build_dir(tmp_path, monkeypatch):
    """An empty build root (PYPTO_PROG_BUILD_DIR) and working directory for one test."""
    root = tmp_path / "build"
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(root))
    monkeypatch.chdir(work)
    return root


@pytest.fixture
def parser(monkeypatch, build_dir):
    """The fake parse_jit, installed where the JIT imports the real one from."""
    fake = FakeParser()
    module = types.ModuleType("pypto.language.parser")
    module.parse_jit = fake.parse_jit
    monkeypatch.setitem(sys.modules, "pypto.language.parser", module)
    return fake

