"""The comm engine's Python face (pypto._core.comm_*): run under mpirun in
subprocesses, so MPI never starts (or finalizes) inside the pytest process."""
import os
import subprocess
import sys
import textwrap

import pytest

import pypto
from pypto import _core, plugins

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")

RANKS_SCRIPT = textwrap.dedent("""
    import ctypes
    from pypto import _core as c

    c.comm_start("mpi")
    c.comm_start("mpi")  # idempotent
    r, n = c.comm_rank(), c.comm_world_size()
    assert c.comm_running() and c.comm_host_name()

    values = (ctypes.c_float * 4)(*([r + 1.0] * 4))
    c.comm_allreduce(ctypes.addressof(values), 4, 0x34, 0)  # FP32, Sum
    assert list(values) == [n * (n + 1) / 2] * 4, list(values)

    window, address = c.comm_alloc_window(64)
    assert address % 64 == 0 and c.comm_read_signal(window, 0) == 0
    mine, every = (ctypes.c_int32 * 1)(r), (ctypes.c_int32 * n)()
    c.comm_allgather(ctypes.addressof(mine), ctypes.addressof(every), 4)
    assert list(every) == list(range(n)), list(every)
    text = ctypes.create_string_buffer(b"hello" if r == n - 1 else b"", 8)
    c.comm_broadcast(ctypes.addressof(text), 8, n - 1)
    assert text.value == b"hello"
    c.comm_barrier()

    assert c.comm_alarm_raised_by() is None
    try:
        c.comm_set_wait_timeout(0)
        raise AssertionError("a zero timeout was accepted")
    except ValueError as e:
        assert "it must be > 0 seconds" in str(e)
    c.comm_free_window(window)
    c.comm_finalize()
    assert not c.comm_running()
    # One write per line: mpirun interleaves the ranks' output at the granularity of their writes.
    print(f"rank {r} of {n} ok", flush=True)
""")


def test_the_mpi_engine_is_listed_without_being_loaded():
    engines = {e["name"]: e for e in _core.plugins.list_comm_engines()}
    assert engines["mpi"]["plugin"] == "comm_mpi"
    records = {r["name"]: r for r in plugins.discover()}
    assert records["comm_mpi"]["kind"] == "comm" and records["comm_mpi"]["provides"] == ["mpi"]


def test_without_an_engine_comm_calls_say_to_start_one():
    assert not _core.comm_running()
    with pytest.raises(pypto.KernelFault, match=r"comm_rank: no communication engine runs in this process; "
                                                r"call comm_start\(\) first"):
        _core.comm_rank()


def test_an_unknown_engine_lists_the_known_ones():
    with pytest.raises(ValueError, match="unknown comm engine 'nope'; known comm engines: mpi"):
        _core.comm_start("nope")


def test_two_ranks_run_the_host_builtins(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(RANKS_SCRIPT)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run(["mpirun", "--oversubscribe", "-np", "2", sys.executable, str(script)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 of 2 ok" in done.stdout and "rank 1 of 2 ok" in done.stdout
