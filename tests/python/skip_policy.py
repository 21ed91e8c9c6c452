"""No silent skips in CI: with CI=true, a test that skips or xfails fails the run unless ALLOWED lists it.

A skip is how a breakage hides: a guard that skips when a dependency does not import, or a pipeline that "cannot be
built here", turns a broken build into a green run. Locally a skip stays a skip (and `-rs` lists it); in CI
(CI=true, which .ci/run sets) every skip and xfail must match an entry of ALLOWED, each with the reason it is
legitimate there, or the session ends with exit status 1 and a list of the offenders.

The conftest of tests/python calls `register` from pytest_configure. Under pytest-xdist the policy lives in the
controller, which sees every worker's reports.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Allowed:
    """Tests whose node id matches `nodeid` (fnmatch) may skip or xfail in CI, when `reason` is in their reason."""
    nodeid: str
    reason: str
    why: str


# Short on purpose: every entry says why CI may legitimately not run the test.
ALLOWED: tuple[Allowed, ...] = (
    Allowed("*tools/test_pto_isa_conformance.py::test_the_kernels_compile_and_match_against_the_real_pto_isa",
            "PTO_ISA_ROOT is not set",
            "CI has no pto-isa checkout; set PTO_ISA_ROOT to a hw-native-sys/pto-isa checkout to run it"),
)


@dataclass(frozen=True)
class Skip:
    nodeid: str
    outcome: str  # "skipped" or "xfailed"
    reason: str


def in_ci(environ=os.environ) -> bool:
    return environ.get("CI", "").strip().lower() in ("1", "true", "yes")


def unlisted(skips: list[Skip], allowed: tuple[Allowed, ...] = ALLOWED) -> list[Skip]:
    """The skips no entry of `allowed` covers."""
    return [s for s in skips
            if not any(fnmatch.fnmatchcase(s.nodeid, a.nodeid) and a.reason in s.reason for a in allowed)]


def without_xdist_group(nodeid: str) -> str:
    """The node id without the `@group` that pytest-xdist's loadgroup appends, so ALLOWED names tests, not groups."""
    return _XDIST_GROUP.sub("", nodeid)


_XDIST_GROUP = re.compile(r"@[\w.-]+$")


def skip_of(report: pytest.TestReport | pytest.CollectReport) -> Skip | None:
    """The skip or xfail a report records, if it records one (a module that skips itself: a skipped collection)."""
    if hasattr(report, "wasxfail"):
        if report.skipped:  # an expected failure that failed: "xfailed"
            return Skip(without_xdist_group(report.nodeid), "xfailed", report.wasxfail)
        return None  # xpassed: a strict xfail fails by itself
    if report.skipped:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        return Skip(without_xdist_group(report.nodeid), "skipped", reason.removeprefix("Skipped: "))
    return None


def _is_xdist_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


class SkipPolicy:
    """The plugin: records every skip and xfail of the session, and with CI=true fails it on an unlisted one."""

    def __init__(self, allowed: tuple[Allowed, ...] = ALLOWED) -> None:
        self.allowed = allowed
        self.skips: list[Skip] = []

    def offenders(self) -> list[Skip]:
        return unlisted(self.skips, self.allowed) if in_ci() else []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._record(report)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._record(report)

    def _record(self, report: pytest.TestReport | pytest.CollectReport) -> None:
        found = skip_of(report)
        if found is not None:
            self.skips.append(found)

    def pytest_terminal_summary(self, terminalreporter) -> None:
        offenders = self.offenders()
        if not offenders:
            return
        terminalreporter.section("skips CI does not allow", sep="=", red=True, bold=True)
        for s in offenders:
            terminalreporter.line(f"{s.outcome.upper()} {s.nodeid}: {s.reason}")
        terminalreporter.line(f"{len(offenders)} test(s) skipped or xfailed with CI=true and are not in "
                              "tests/python/skip_policy.py's ALLOWED: make them run (or fail), or add an entry that "
                              "says why CI cannot run them.")

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.offenders() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def register(config: pytest.Config) -> None:
    """Installs the policy in the process that sees every report: the controller under xdist, else the one process."""
    if not _is_xdist_worker(config):
        config.pluginmanager.register(SkipPolicy(), "pypto-skip-policy")
