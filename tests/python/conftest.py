import os

import pytest

import hang_reports
import skip_policy
from pypto import ir

# Every kernel the suite runs checks its pipe synchronization (RunConfig.check_pipe_hazards, unset): a missing
# set_flag / wait_flag is a kernel fault here, as it would be wrong numbers on the chip. Examples and other
# processes the tests start inherit it.
os.environ.setdefault("PYPTO_CHECK_PIPE_HAZARDS", "1")


def pytest_configure(config):
    skip_policy.register(config)
    hang_reports.register(config)


def _shared_folder(tmp_path_factory, name: str):
    """A folder every pytest-xdist worker of this run sees: beside the workers' own temporary roots."""
    if "PYTEST_XDIST_WORKER" not in os.environ:
        return tmp_path_factory.mktemp(name, numbered=False)
    folder = tmp_path_factory.getbasetemp().parent / name
    folder.mkdir(exist_ok=True)
    return folder


def _set_environment(variable: str, folder):
    """Points `variable` at `folder` for the whole run (subprocesses inherit it), then restores it."""
    previous = os.environ.get(variable)
    os.environ[variable] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop(variable, None)
    else:
        os.environ[variable] = previous


@pytest.fixture(scope="session", autouse=True)
def object_cache(tmp_path_factory):
    """One kernel object cache for the whole run, shared by the xdist workers, outside the user's ~/.cache.

    The cache writes each entry to a temporary file and renames it into place, so workers that compile the same
    kernel at once both succeed and every later compile of it, in any worker or example process, is a hit."""
    yield from _set_environment("PYPTO_CACHE_DIR", _shared_folder(tmp_path_factory, "pypto_cache"))


@pytest.fixture(scope="session", autouse=True)
def build_output_root(tmp_path_factory):
    """Compile outputs of tests that do not choose a folder go to a temporary one, not into the source tree."""
    yield from _set_environment("PYPTO_PROG_BUILD_DIR", tmp_path_factory.mktemp("build_output"))


@pytest.fixture
def index():
    return ir.ScalarType(ir.DataType.INDEX)
