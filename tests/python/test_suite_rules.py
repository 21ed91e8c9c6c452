"""The rules the suite runs under (docs/contributing.md): with CI=true a skip or xfail that skip_policy.ALLOWED does
not list fails the run, with or without xdist; and the tests of one xdist_group run on one worker."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from skip_policy import Allowed, Skip, in_ci, unlisted

HERE = Path(__file__).resolve().parent

ALLOW_MODULE = Allowed("suite/test_needs_checkout.py::*", "PTO_ISA_ROOT is not set", "CI has no pto-isa checkout")


def test_an_entry_covers_matching_node_ids_with_its_reason_only():
    listed = Skip("suite/test_needs_checkout.py::test_conformance[add]", "skipped", "PTO_ISA_ROOT is not set here")
    other_reason = Skip("suite/test_needs_checkout.py::test_conformance[add]", "skipped", "g++ is not installed")
    other_test = Skip("suite/test_ops.py::test_add", "skipped", "PTO_ISA_ROOT is not set here")
    xfailed = Skip("suite/test_needs_checkout.py::test_old", "xfailed", "PTO_ISA_ROOT is not set")
    assert unlisted([listed, other_reason, other_test, xfailed], (ALLOW_MODULE,)) == [other_reason, other_test]
    assert unlisted([listed], ()) == [listed]


@pytest.mark.parametrize("value, expected", [("true", True), ("True", True), ("1", True), ("yes", True),
                                             ("", False), ("0", False), ("false", False)])
def test_ci_is_on_for_the_usual_spellings(value, expected):
    assert in_ci({"CI": value}) is expected
    assert in_ci({}) is False


SUITE = {
    "conftest.py": """
        import skip_policy
        from skip_policy import Allowed

        def pytest_configure(config):
            if not hasattr(config, "workerinput"):
                allowed = (Allowed("test_listed.py::test_listed", "no checkout", "a listed reason"),)
                config.pluginmanager.register(skip_policy.SkipPolicy(allowed), "pypto-skip-policy")
        """,
    "test_runs.py": """
        def test_runs():
            assert True
        """,
    "test_listed.py": """
        import pytest

        @pytest.mark.xdist_group("checkout")  # under loadgroup its node id ends in @checkout
        def test_listed():
            pytest.skip("no checkout of the vendor's headers")
        """,
}
UNLISTED = {
    "test_skips.py": """
        import pytest

        @pytest.mark.skipif(True, reason="the widget is not installed")
        def test_skips():
            pass
        """,
    "test_xfails.py": """
        import pytest

        @pytest.mark.xfail(reason="known to be broken")
        def test_xfails():
            assert False
        """,
    "test_module_skips.py": """
        import pytest

        pytest.skip("the whole module needs a device", allow_module_level=True)
        """,
}


def run_suite(folder: Path, files: dict[str, str], ci: str | None = None, *options: str) -> subprocess.CompletedProcess:
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text))
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", *options, str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)


def section(output: str, title: str) -> str:
    """The lines of the terminal summary section `title`, up to the next section's ==== rule."""
    lines = output.split(title, 1)[1].splitlines()[1:]
    return "\n".join(lines[:next((i for i, line in enumerate(lines) if line.startswith("=")), len(lines))])


@pytest.mark.parametrize("options", [(), ("-n", "2")], ids=["one process", "xdist"])
def test_unlisted_skips_fail_the_run_in_ci(tmp_path, options):
    done = run_suite(tmp_path / "suite", {**SUITE, **UNLISTED}, "true", *options)
    assert done.returncode == 1, done.stdout + done.stderr
    offenders = section(done.stdout, "skips CI does not allow")
    assert "SKIPPED test_skips.py::test_skips: the widget is not installed" in offenders
    assert "XFAILED test_xfails.py::test_xfails: known to be broken" in offenders
    assert "SKIPPED test_module_skips.py: the whole module needs a device" in offenders
    assert "test_listed" not in offenders
    assert "3 test(s) skipped or xfailed with CI=true" in offenders


@pytest.mark.parametrize("options", [(), ("-n", "2"), ("-n", "2", "--dist", "loadgroup")],
                         ids=["one process", "xdist", "xdist loadgroup"])
def test_listed_skips_pass_in_ci(tmp_path, options):
    done = run_suite(tmp_path / "suite", SUITE, "true", *options)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert "skips CI does not allow" not in done.stdout


def test_outside_ci_a_skip_is_only_reported(tmp_path):
    done = run_suite(tmp_path / "suite", {**SUITE, **UNLISTED}, None)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the widget is not installed" in done.stdout  # -rs lists it
    assert "skips CI does not allow" not in done.stdout


def test_a_failing_run_stays_failed(tmp_path):
    failing = {**SUITE, "test_fails.py": "def test_fails():\n    assert False\n"}
    done = run_suite(tmp_path / "suite", failing, "true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed" in done.stdout


GROUPED = {
    "test_grouped.py": """
        import os
        import time

        import pytest

        @pytest.mark.xdist_group("serial")
        @pytest.mark.parametrize("i", range(6))
        def test_grouped(i):
            time.sleep(0.1)  # long enough for both workers to be asking for work
            with open("workers.txt", "a") as f:
                f.write(os.environ["PYTEST_XDIST_WORKER"] + " ")

        @pytest.mark.parametrize("i", range(6))
        def test_free(i):
            time.sleep(0.1)
        """,
}


def test_an_xdist_group_runs_on_one_worker(tmp_path):
    """What the MPI jobs rely on (make test runs with --dist loadgroup); under pytest 9.2 xdist 3.8 ignored the marks."""
    done = run_suite(tmp_path / "suite", GROUPED, None, "-n", "2", "--dist", "loadgroup")
    assert done.returncode == 0, done.stdout + done.stderr
    workers = (tmp_path / "suite" / "workers.txt").read_text().split()
    assert len(workers) == 6 and len(set(workers)) == 1, workers
