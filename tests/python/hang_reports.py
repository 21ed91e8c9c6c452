"""A hang fails its test with the stack of every thread, under pytest-xdist too.

pytest-timeout (`timeout` in pyproject.toml) ends a test that runs past its time. Its thread method prints the stacks
to the process's terminal and exits, and it needs the GIL to do so. In a pytest-xdist worker that terminal is not
shown, so the run would only say that the worker crashed. In a worker this plugin arms faulthandler's watchdog
instead: a C thread, which needs no GIL, writes every thread's Python stack to a file and ends the worker. The
controller, told by xdist that the worker crashed while running that test, adds the file to the test's failure.

The conftest of tests/python calls `register` from pytest_configure.
"""

from __future__ import annotations

import faulthandler
import hashlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import IO

import pytest

DUMPS = "PYPTO_TIMEOUT_DUMPS"  # the folder both sides use, which the controller makes before the workers start


def dump_path(nodeid: str) -> Path:
    return Path(os.environ[DUMPS]) / f"{hashlib.sha1(nodeid.encode()).hexdigest()}.txt"


class WorkerWatchdog:
    """In a worker: takes over pytest-timeout's timer for each test (its hooks are firstresult)."""

    def __init__(self) -> None:
        self.dump: IO[str] | None = None

    def pytest_timeout_set_timer(self, item: pytest.Item, settings) -> bool:
        self.dump = dump_path(item.nodeid).open("w")
        self.dump.write(f"{item.nodeid} ran past its timeout of {settings.timeout:g} s; every thread's stack:\n")
        self.dump.flush()
        faulthandler.dump_traceback_later(settings.timeout, exit=True, file=self.dump)
        return True

    def pytest_timeout_cancel_timer(self, item: pytest.Item) -> bool:
        faulthandler.cancel_dump_traceback_later()
        if self.dump is not None:
            self.dump.close()
            dump_path(item.nodeid).unlink(missing_ok=True)
            self.dump = None
        return True


class CrashReports:
    """In the controller: a worker that crashed on a test that timed out left its stacks; they join the failure."""

    def pytest_handlecrashitem(self, crashitem: str, report: pytest.TestReport, sched) -> None:
        path = dump_path(crashitem)
        if path.is_file():
            report.longrepr = f"{report.longrepr}\n{path.read_text()}"

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        shutil.rmtree(os.environ.pop(DUMPS), ignore_errors=True)


def register(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        if DUMPS in os.environ:
            config.pluginmanager.register(WorkerWatchdog(), "pypto-timeout-watchdog")
    elif getattr(config.option, "numprocesses", None):  # -n N: xdist runs the tests in workers
        os.environ[DUMPS] = tempfile.mkdtemp(prefix="pypto-timeouts-")
        config.pluginmanager.register(CrashReports(), "pypto-timeout-reports")
