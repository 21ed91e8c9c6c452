"""The pld.tensor.* host builtins on every rank (run by test_host_collectives.py under mpirun -np P).

Each collective runs the credit-barrier code of c_api_collectives.cpp on window buffers; its result is checked
against torch on every rank's inputs (each rank can make them all: they come from per-rank seeds), and its
signal window is checked to be all zero afterwards. Prints "rank r of P ok".
"""

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto import _core
from pypto.runtime import distributed, windows
from pypto.runtime.distributed import DistributedError

W = 96  # columns; rows * W is a multiple of 2 and 3 (ring segments)


def inputs(shape, dtype, r, kind="int"):
    """Rank r's data: small integers (sums exact in any order), or powers of two for Prod."""
    g = torch.Generator().manual_seed(1000 + r)
    if kind == "pow2":
        return (2.0 ** torch.randint(-2, 3, shape, generator=g)).to(dtype)
    return torch.randint(-8, 9, shape, generator=g).to(dtype)


def all_inputs(shape, dtype, world, kind="int"):
    return torch.stack([inputs(shape, dtype, r, kind) for r in range(world)])


def signal_is_zero(sig):
    # Between two engine barriers: every rank has left the collective and none has started the next one (whose
    # first notify may land here early, as the protocol allows).
    windows.barrier()
    zero = bool((sig == 0).all())
    windows.barrier()
    return zero


REDUCE = {pld.ReduceOp.Sum: lambda t: t.sum(0), pld.ReduceOp.Max: lambda t: t.amax(0),
          pld.ReduceOp.Min: lambda t: t.amin(0), pld.ReduceOp.Prod: lambda t: t.prod(0)}


@pl.jit.host
def collectives():
    run = distributed.current_host_run()
    me, world = run.rank, run.world_size
    checked = []

    # allreduce, mesh: every op, FP32 / FP16 / INT32, with a given signal and with a synthesized one.
    sig_buf = pld.alloc_window_buffer([world, 1], dtype=pl.INT32)
    sig = pld.window(sig_buf, [world, 1], dtype=pl.INT32)
    for dtype, ir_dtype in ((torch.float32, pl.FP32), (torch.float16, pl.FP16), (torch.int32, pl.INT32)):
        for op in pld.ReduceOp:
            kind = "pow2" if op == pld.ReduceOp.Prod else "int"
            shape = [4, 75]
            buf = pld.alloc_window_buffer(shape, dtype=ir_dtype)
            data = pld.window(buf, shape, dtype=ir_dtype)
            data.copy_(inputs(shape, dtype, me, kind))
            given = op != pld.ReduceOp.Max
            data = pld.tensor.allreduce(data, sig, op=op) if given else pld.tensor.allreduce(data, op=op)
            expected = REDUCE[op](all_inputs(shape, dtype, world, kind)).to(dtype)
            torch.testing.assert_close(data, expected, rtol=0, atol=0, msg=lambda m: f"mesh {op!r} {dtype}: {m}")
            assert signal_is_zero(sig), sig
            checked.append(f"mesh-{op.name}-{dtype}")

    # allreduce, ring: FP32 Sum, twice back to back on the synthesized signal, then on a given one of the host
    # builtin's shape [2(NR-1)+1, NR].
    shape = [8, W]
    buf = pld.alloc_window_buffer(shape, dtype=pl.FP32)
    data = pld.window(buf, shape, dtype=pl.FP32)
    data.copy_(inputs(shape, torch.float32, me))
    data = pld.tensor.allreduce(data, op=pld.ReduceOp.Sum, mode="ring")
    data = pld.tensor.allreduce(data, op=pld.ReduceOp.Sum, mode="ring")
    expected = all_inputs(shape, torch.float32, world).sum(0) * world
    torch.testing.assert_close(data, expected, rtol=0, atol=0)
    if world > 1:
        synthesized = run.signals[(2 * (world - 1), world)]
        assert signal_is_zero(synthesized), synthesized
        assert signal_is_zero(run.signals[(world, 1)])
        assert set(run.signals) == {(world, 1), (2 * (world - 1), world)}, run.signals.keys()  # one per shape
    ring_rows = 2 * (world - 1) + 1
    ring_sig = pld.window(pld.alloc_window_buffer([ring_rows, world], dtype=pl.INT32), [ring_rows, world],
                          dtype=pl.INT32)
    data.copy_(inputs(shape, torch.float32, me))
    data = pld.tensor.allreduce(data, ring_sig, mode="ring")
    torch.testing.assert_close(data, all_inputs(shape, torch.float32, world).sum(0), rtol=0, atol=0)
    assert signal_is_zero(ring_sig), ring_sig
    checked.append("ring")

    # barrier
    sig = pld.tensor.barrier(sig)
    sig = pld.tensor.barrier(sig)
    assert signal_is_zero(sig), sig

    # broadcast from the last rank
    shape = [3, W]
    data = pld.window(pld.alloc_window_buffer(shape, dtype=pl.FP32), shape, dtype=pl.FP32)
    data.copy_(inputs(shape, torch.float32, me))
    data = pld.tensor.broadcast(data, sig, root=world - 1)
    torch.testing.assert_close(data, inputs(shape, torch.float32, world - 1), rtol=0, atol=0)
    assert signal_is_zero(sig), sig

    # allgather: mine [1, W] (a window of its own), out [NR, W]
    mine = pld.window(pld.alloc_window_buffer([1, W], dtype=pl.FP32), [1, W], dtype=pl.FP32)
    out = pld.window(pld.alloc_window_buffer([world, W], dtype=pl.FP32), [world, W], dtype=pl.FP32)
    mine.copy_(inputs([1, W], torch.float32, me))
    out = pld.tensor.allgather(mine, out, sig)
    torch.testing.assert_close(out, all_inputs([1, W], torch.float32, world)[:, 0], rtol=0, atol=0)
    assert signal_is_zero(sig), sig

    # reduce_scatter: row me of rank me is the sum of every rank's row me
    shape = [world, W]
    data = pld.window(pld.alloc_window_buffer(shape, dtype=pl.FP32), shape, dtype=pl.FP32)
    data.copy_(inputs(shape, torch.float32, me))
    data = pld.tensor.reduce_scatter(data, sig, op=pld.ReduceOp.Sum)
    torch.testing.assert_close(data[me], all_inputs(shape, torch.float32, world).sum(0)[me], rtol=0, atol=0)
    assert signal_is_zero(sig), sig

    # all_to_all: out[s] = rank s's stage[me]
    stage = pld.window(pld.alloc_window_buffer(shape, dtype=pl.INT32), shape, dtype=pl.INT32)
    out = pld.window(pld.alloc_window_buffer(shape, dtype=pl.INT32), shape, dtype=pl.INT32)
    stage.copy_(inputs(shape, torch.int32, me))
    out = pld.tensor.all_to_all(stage, out, sig)
    torch.testing.assert_close(out, all_inputs(shape, torch.int32, world)[:, me], rtol=0, atol=0)
    assert signal_is_zero(sig), sig

    # What the host forms reject, before any rank communicates.
    fp32 = pld.window(pld.alloc_window_buffer([1, W], dtype=pl.FP32), [1, W], dtype=pl.FP32)
    odd = pld.window(pld.alloc_window_buffer([1, 7], dtype=pl.FP32), [1, 7], dtype=pl.FP32)
    rejected = [
        (lambda: pld.tensor.allreduce(fp32, op=pld.ReduceOp.Max, mode="ring"), "FP32 with Sum only"),
        (lambda: pld.tensor.allreduce(fp32, mode="ring", core_num=2), "the host ring runs on one block"),
        (lambda: pld.tensor.allreduce(fp32, mode="tree"), "mode is 'mesh' or 'ring'"),
        (lambda: pld.tensor.barrier(), "needs a signal window"),
        (lambda: pld.tensor.broadcast(fp32, fp32, root=0), "the signal must be an INT32 window"),
        (lambda: pld.tensor.allreduce(sig, sig), "different pld.alloc_window_buffer allocations"),
    ]
    if world in (2, 3):
        rejected.append((lambda: pld.tensor.allreduce(odd, mode="ring"), "do not split into"))
    for call, text in rejected:
        try:
            call()
        except DistributedError as e:
            assert text in str(e), (text, str(e))
        else:
            raise AssertionError(f"accepted: expected an error saying {text!r}")
    return checked


checked = collectives()

# The bindings under the builtins (pypto._core.comm_window_*) say what is wrong with a tensor before any rank waits.
world = distributed.world_size()
x = windows.allocate(4 * 32).view([4, 8], torch.float32)
sig = windows.allocate(4 * world).view([world, 1], torch.int32)
for call, error, text in [
    (lambda: _core.comm_window_allreduce(x[:, ::2], sig, 0, False), ValueError, "is not contiguous"),
    (lambda: _core.comm_window_allreduce(torch.zeros(8), sig, 0, False), ValueError, "is not inside any window"),
    (lambda: _core.comm_window_allreduce(x, sig.view(torch.float32), 0, False), ValueError, "must be an INT32"),
    (lambda: _core.comm_window_allreduce(x, sig, 7, False), ValueError, "op"),
    (lambda: _core.comm_window_barrier(sig[:1]), ValueError, "needs at least"),
]:
    try:
        call()
    except error as e:
        assert text in str(e), (text, str(e))
    else:
        raise AssertionError(f"accepted: expected {error.__name__} saying {text!r}")
_core.comm_window_allreduce(x, sig, 0, False)  # and a good call still works after the rejected ones
print(f"rank {distributed.rank()} of {distributed.world_size()} ok ({len(checked)} allreduce checks)", flush=True)
