"""A distributed job that goes wrong ends, non-zero, with the error: a wait that never gets its notify times out
(DistributedConfig(wait_timeout_s=2)) with a report from every waiting rank; a rank that raises takes the job
down instead of leaving the others waiting for it."""

import re

import pytest

from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")


def _line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_a_rank_that_never_signals_times_out_with_a_report_from_every_rank(tmp_path):
    done = run_script(PROGRAMS / "never_signals.py", tmp_path, "--ranks", "3", timeout=60)
    assert done.returncode != 0, describe(done)
    assert "not reached" not in done.stdout
    err = done.stderr
    # The rank whose wait reached the deadline first names the wait (kernel, instruction, line), the cell and its
    # signal table.
    assert re.findall(r"comm wait timed out on rank (\d) after", err) == ["1"], describe(done)
    first = "1"
    assert "kernel 'wait_for_rank1' (task 0) faulted in TWAIT at " in err, describe(done)
    wait_line = _line_of(PROGRAMS / "never_signals.py", "pld.system.wait(")
    # Its timeout is 2 s (the others' 8 s); on a loaded machine the wait notices the deadline a little late.
    waited = re.search(rf"never_signals.py:{wait_line}: comm wait timed out on rank 1 after ([0-9.]+) s", err)
    assert waited and 2.0 <= float(waited[1]) < 8.0, describe(done)
    assert "holds 0, waiting for it to be >= 1" in err
    assert re.search(rf"signal \[3, 1\] on rank {first}: \[0,0\]=1 \[1,0\]=0 \[2,0\]=1; the wait is on \[1,0\]", err), \
        describe(done)
    # The others were stopped and say so.
    stopped = set(re.findall(rf"comm wait on rank (\d) stopped after [0-9.]+ s because rank {first} timed out first",
                             err))
    assert stopped == {"0", "1", "2"} - {first}, describe(done)
    assert f"pypto: rank {first} of 3 aborts the job (code 1): rank {first} raised KernelFault" in err


def test_a_rank_that_raises_ends_the_job_with_its_error(tmp_path):
    done = run_script(PROGRAMS / "raises_on_one_rank.py", tmp_path, "--ranks", "3", timeout=60)
    assert done.returncode != 0, describe(done)
    assert "not reached" not in done.stdout
    assert "pypto: rank 1 of 3 failed:" in done.stderr, describe(done)
    dispatch_line = _line_of(PROGRAMS / "raises_on_one_rank.py", "copy_row_dev(x[r][:, : W // 2], y[r], device=r)")
    assert f"raises_on_one_rank.py:{dispatch_line}:" in done.stderr, describe(done)
    assert "parameter 'x' expects shape [1, 64]" in done.stderr
    assert "rank 1 of 3 aborts the job (code 1): rank 1 raised KernelShapeError" in done.stderr
    assert "pypto: rank 0 of 3 failed" not in done.stderr  # the others were waiting, not failing
