import os

import pytest

from pypto import ir


def _session_folder(tmp_path_factory, variable: str, name: str):
    """A temporary folder named by environment variable `variable` for the whole run (subprocesses inherit it)."""
    folder = tmp_path_factory.mktemp(name)
    previous = os.environ.get(variable)
    os.environ[variable] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = previous


@pytest.fixture(scope="session", autouse=True)
def object_cache(tmp_path_factory):
    """One kernel object cache for the whole run, outside the user's ~/.cache."""
    yield from _session_folder(tmp_path_factory, "PYPTO_CACHE_DIR", "pypto_cache")


@pytest.fixture(scope="session", autouse=True)
def build_output_root(tmp_path_factory):
    """Compile outputs of tests that do not choose a folder go to a temporary one, not into the source tree."""
    yield from _session_folder(tmp_path_factory, "PYPTO_PROG_BUILD_DIR", "build_output")


@pytest.fixture
def index():
    return ir.ScalarType(ir.DataType.INDEX)
