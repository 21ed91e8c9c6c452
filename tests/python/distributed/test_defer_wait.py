"""pld.system.defer_wait: under mpirun, a deferred wait releases its continuation only after the peer's data
and signal arrived, and one that never holds times out with a wait's report; in this process, the region
contract is checked at the user's line."""

import pytest

import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from dist_runner import PROGRAMS, describe, run_script

# MPI jobs run one at a time (one xdist worker takes the group): several rank processes each, on 2 cores.
pytestmark = pytest.mark.xdist_group("mpi")

W = 64
SIG = pld.DistributedTensor[[1, 8], pl.INT32]


def _line_of(path, text):
    return next(i for i, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_the_continuation_reads_what_the_peer_put_before_its_signal(tmp_path):
    done = run_script(PROGRAMS / "defer_wait.py", tmp_path, timeout=120)
    assert done.returncode == 0, describe(done)
    assert done.stdout.strip().endswith("OK"), describe(done)


def test_a_deferred_wait_that_never_holds_times_out_with_the_wait_report(tmp_path):
    done = run_script(PROGRAMS / "defer_wait.py", tmp_path, "--never", timeout=120)
    assert done.returncode != 0, describe(done)
    assert "OK" not in done.stdout
    err = done.stderr
    line = _line_of(PROGRAMS / "defer_wait.py", "pld.system.defer_wait(")
    assert "kernel 'wait_for_0' (task " in err and "faulted in TDEFER_WAIT at " in err, describe(done)
    assert f"defer_wait.py:{line}: its deferred wait (pld.system.defer_wait) never held: comm wait timed out on " \
           "rank 1 after 2." in err, describe(done)
    # Rank 0 did set the cell, to 1; rank 1 waits for 2.
    assert "signal cell (window " in err and "holds 1, waiting for it to be >= 2" in err, describe(done)
    assert "signal [1, 8] on rank 1: [0,0]=1 [0,1]=0" in err and "the wait is on [0,0]" in err, describe(done)
    assert "tasks not yet started were cancelled" in err, describe(done)


# The region contract, checked by the front end (nothing runs).

@pl.jit
def early_resolve_not_written(sig: pl.InOut[SIG]):
    with pl.at(level=pl.Level.CORE_GROUP) as tid:
        pld.system.defer_wait(sig, [0, 0], 1)
    return sig


@pl.jit
def with_work_inside(sig: pl.InOut[SIG], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:
        pld.system.defer_wait(sig, [0, 0], 1)
        out = pl.store(pl.tile.full([1, W], dtype=pl.FP32, value=1.0), [0, 0], out)
    return out


@pl.jit
def scalars_and_waits(sig: pl.InOut[pld.DistributedTensor[[2, 8], pl.INT32]],
                      out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wait_both", allow_early_resolve=False) as tid:
        me = pld.rank(pld.get_comm_ctx(sig))
        pld.system.defer_wait(sig, offsets=[0, 0], expected=me + 1, cmp=pld.WaitCmp.Ge)
        pld.system.defer_wait(sig, offsets=[1, 0], expected=1)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]):
        out = pl.store(pl.tile.full([1, W], dtype=pl.FP32, value=1.0), [0, 0], out)
    return out


@pl.jit
def eq_wait(sig: pl.InOut[SIG]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:
        pld.system.defer_wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Eq)
    return sig


@pl.jit
def early_resolving(sig: pl.InOut[SIG]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=True) as tid:
        pld.system.defer_wait(sig, [0, 0], 1)
    return sig


@pl.jit
def in_an_spmd_grid(sig: pl.InOut[SIG]):
    with pl.spmd(4):
        pld.system.defer_wait(sig, [0, 0], 1)
    return sig


@pl.jit
def split_region(sig: pl.InOut[SIG]):
    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False,
               optimizations=[pl.split(pl.SplitMode.UP_DOWN)]) as tid:
        pld.system.defer_wait(sig, [0, 0], 1)
    return sig


@pl.jit.incore
def kernel_defers(sig: pl.InOut[SIG]):
    pld.system.defer_wait(sig, [0, 0], 1)
    return sig


def _error(fn) -> str:
    with pytest.raises(pypto.Error) as caught:
        fn.lower()
    return str(caught.value)


def test_defer_wait_needs_allow_early_resolve_false():
    message = _error(early_resolve_not_written)
    assert "pld.system.defer_wait needs a region whose dependents start only once the wait holds; the region must " \
           "say so: write allow_early_resolve=False" in message
    assert "pld.system.defer_wait(sig, [0, 0], 1)" in message          # the user's line, under a caret


def test_defer_wait_in_a_region_with_other_work_names_the_statement():
    message = _error(with_work_inside)
    assert "a pld.system.defer_wait region holds only the defer_wait calls and the scalar assignments" in message
    assert "out = pl.store(pl.tile.full(" in message
    assert "move this statement before the region, or after it into `with pl.at(level=pl.Level.CORE_GROUP, " \
           "deps=[tid]):`" in message


def test_defer_wait_in_a_kernel_body_needs_a_region_of_its_own():
    message = _error(kernel_defers)
    assert "pld.system.defer_wait defers the completion of the task it runs in, so it must sit in a dedicated pl.at " \
           "region" in message
    assert "with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:" in message


def test_an_early_resolving_region_cannot_defer():
    message = _error(early_resolving)
    assert "allow_early_resolve=True would release the region's dependents before its wait holds" in message


def test_an_spmd_grid_cannot_defer():
    message = _error(in_an_spmd_grid)
    assert "pld.system.defer_wait in a pl.spmd(...) region: only a single-block pl.at(level=pl.Level.CORE_GROUP) " \
           "task can defer its completion" in message


def test_a_split_region_cannot_defer():
    message = _error(split_region)
    assert "pld.system.defer_wait in a pl.split region: a deferred task is one vector kernel" in message


def test_defer_wait_compares_with_ge_only():
    message = _error(eq_wait)
    assert "pld.system.defer_wait supports cmp=pld.WaitCmp.Ge only" in message
    assert "for an Eq wait use pld.system.wait" in message


def test_a_region_of_waits_and_scalars_compiles_to_a_deferring_kernel():
    program = scalars_and_waits.lower()
    text = str(program)
    assert text.count("pld.system.defer_wait(") == 2, text


def test_the_outlined_waits_parse_back_from_printed_ir():
    from pypto import ir
    from pypto.language.parser import parse
    text = ir.as_python(scalars_and_waits.lower())
    kernel = text[text.index("    @pl.function(type=pl.FunctionType.InCore)\n    def wait_both"):]
    program = parse("import pypto.language as pl\nimport pypto.language.distributed as pld\n\n"
                    "@pl.program\nclass waits:\n" + kernel)
    assert ir.as_python(program).count("pld.system.defer_wait(") == 2


def test_more_than_64_waits_in_one_region_is_an_error_at_the_65th(tmp_path, monkeypatch):
    waits = "\n".join(f"        pld.system.defer_wait(sig, [{i}, 0], 1)" for i in range(65))
    source = (
        "import pypto.language as pl\n"
        "import pypto.language.distributed as pld\n"
        "@pl.jit\n"
        "def many(sig: pl.InOut[pld.DistributedTensor[[65, 8], pl.INT32]]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False) as tid:\n"
        f"{waits}\n"
        "    return sig\n")
    (tmp_path / "many_waits.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    import many_waits
    message = _error(many_waits.many)
    assert "this region has more than 64 pld.system.defer_wait calls; a task defers its completion on at most 64 " \
           "conditions" in message
    assert "pld.system.defer_wait(sig, [64, 0], 1)" in message
