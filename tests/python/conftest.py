import os

import pytest

from pypto import ir


@pytest.fixture(scope="session", autouse=True)
def object_cache(tmp_path_factory):
    """One kernel object cache for the whole run, outside the user's ~/.cache (subprocesses inherit it)."""
    folder = tmp_path_factory.mktemp("pypto_cache")
    previous = os.environ.get("PYPTO_CACHE_DIR")
    os.environ["PYPTO_CACHE_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("PYPTO_CACHE_DIR", None)
    else:
        os.environ["PYPTO_CACHE_DIR"] = previous


@pytest.fixture(scope="session", autouse=True)
def build_output_root(tmp_path_factory):
    """Compile outputs of tests that do not choose a folder go to a temporary one, not into the source tree."""
    folder = tmp_path_factory.mktemp("build_output")
    previous = os.environ.get("PYPTO_PROG_BUILD_DIR")
    os.environ["PYPTO_PROG_BUILD_DIR"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("PYPTO_PROG_BUILD_DIR", None)
    else:
        os.environ["PYPTO_PROG_BUILD_DIR"] = previous


@pytest.fixture
def index():
    return ir.ScalarType(ir.DataType.INDEX)
