"""The pld.tensor.* host collectives of compiled @pl.jit.host orchestrators, on every rank (run by
test_host_collectives.py under mpirun -np P).

Each orchestrator stages every rank's inputs (a host tensor [P, ...], one row per rank, from per-rank seeds, so
every rank can make them all) into windows through a chip program, runs host collectives on the windows, and reads
the windows back out through a chip program into pl.Out host tensors, which every rank ends with. The results are
checked against torch on every rank, and so are the signal windows the orchestrators give: all zero once their
last collective has returned (read out at the end, when no rank can have started another collective on them).
Prints "rank r of P ok".
"""

import math

import torch

import pypto.language as pl
import pypto.language.distributed as pld
from pypto import _core
from pypto.runtime import distributed, windows

distributed.start()  # mpirun started the ranks; the orchestrators' shapes use the rank count
P = distributed.world_size()
ME = distributed.rank()
W = 96  # columns: a multiple of 16 elements (FP16 rows of 192 bytes); P * W splits into P ring segments
LAST = P - 1  # the broadcast's root
SW = 16  # a signal buffer is read out as [SR, SW] INT32: enough cells for the ring's [2(P-1)+1, P] signal
SR = math.ceil((2 * (P - 1) + 1) * P / SW)
RING_ROWS = 2 * (P - 1) + 1


def inputs(dtype, r, rows=P, kind="int"):
    """Rank r's [rows, W]: small integers (sums exact in any order), or powers of two for Prod (exact products)."""
    g = torch.Generator().manual_seed(1000 + r)
    if kind == "pow2":
        low = 0 if dtype == torch.int32 else -2
        return (2.0 ** torch.randint(low, 3, (rows, W), generator=g)).to(dtype)
    return torch.randint(-8, 9, (rows, W), generator=g).to(dtype)


def all_inputs(dtype, rows=P, kind="int"):
    """[P, rows, W]: every rank's inputs, the host tensor the orchestrators stage from (x[r] on rank r)."""
    return torch.stack([inputs(dtype, r, rows, kind) for r in range(P)])


# ---------------------------------------------------------------------------- chip programs: windows in and out
# stage_*: rank r's host rows into its window; read_*: a window into rank r's rows of a pl.Out host tensor.

@pl.jit.incore
def stage_f32_k(x: pl.Tensor[[P, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[P, W], pl.FP32]]):
    return pl.store(pl.load(x, [0, 0], [P, W]), [0, 0], win)


@pl.jit
def stage_f32(x: pl.Tensor[[P, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[P, W], pl.FP32]]):
    return stage_f32_k(x, win)


@pl.jit.incore
def read_f32_k(win: pld.DistributedTensor[[P, W], pl.FP32], out: pl.Out[pl.Tensor[[P, W], pl.FP32]]):
    return pl.store(pl.load(win, [0, 0], [P, W]), [0, 0], out)


@pl.jit
def read_f32(win: pld.DistributedTensor[[P, W], pl.FP32], out: pl.Out[pl.Tensor[[P, W], pl.FP32]]):
    return read_f32_k(win, out)


@pl.jit.incore
def stage_f16_k(x: pl.Tensor[[P, W], pl.FP16], win: pl.InOut[pld.DistributedTensor[[P, W], pl.FP16]]):
    return pl.store(pl.load(x, [0, 0], [P, W]), [0, 0], win)


@pl.jit
def stage_f16(x: pl.Tensor[[P, W], pl.FP16], win: pl.InOut[pld.DistributedTensor[[P, W], pl.FP16]]):
    return stage_f16_k(x, win)


@pl.jit.incore
def read_f16_k(win: pld.DistributedTensor[[P, W], pl.FP16], out: pl.Out[pl.Tensor[[P, W], pl.FP16]]):
    return pl.store(pl.load(win, [0, 0], [P, W]), [0, 0], out)


@pl.jit
def read_f16(win: pld.DistributedTensor[[P, W], pl.FP16], out: pl.Out[pl.Tensor[[P, W], pl.FP16]]):
    return read_f16_k(win, out)


@pl.jit.incore
def stage_i32_k(x: pl.Tensor[[P, W], pl.INT32], win: pl.InOut[pld.DistributedTensor[[P, W], pl.INT32]]):
    return pl.store(pl.load(x, [0, 0], [P, W]), [0, 0], win)


@pl.jit
def stage_i32(x: pl.Tensor[[P, W], pl.INT32], win: pl.InOut[pld.DistributedTensor[[P, W], pl.INT32]]):
    return stage_i32_k(x, win)


@pl.jit.incore
def read_i32_k(win: pld.DistributedTensor[[P, W], pl.INT32], out: pl.Out[pl.Tensor[[P, W], pl.INT32]]):
    return pl.store(pl.load(win, [0, 0], [P, W]), [0, 0], out)


@pl.jit
def read_i32(win: pld.DistributedTensor[[P, W], pl.INT32], out: pl.Out[pl.Tensor[[P, W], pl.INT32]]):
    return read_i32_k(win, out)


@pl.jit.incore
def stage_row_k(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def stage_row(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return stage_row_k(x, win)


@pl.jit.incore
def read_sig_k(sig: pld.DistributedTensor[[SR, SW], pl.INT32], out: pl.Out[pl.Tensor[[SR, SW], pl.INT32]]):
    return pl.store(pl.load(sig, [0, 0], [SR, SW]), [0, 0], out)


@pl.jit
def read_sig(sig: pld.DistributedTensor[[SR, SW], pl.INT32], out: pl.Out[pl.Tensor[[SR, SW], pl.INT32]]):
    return read_sig_k(sig, out)


MOVERS = {torch.float32: (pl.FP32, stage_f32, read_f32), torch.float16: (pl.FP16, stage_f16, read_f16),
          torch.int32: (pl.INT32, stage_i32, read_i32)}


# ---------------------------------------------------------------------------- the orchestrators

def mesh_allreduce(dtype, op, stage, read):
    """allreduce(mode='mesh') of [P, W] `dtype` windows with `op`: once on a given [P, 1] signal, once on one the
    compiler synthesizes."""

    @pl.jit.host
    def mesh(x: pl.Tensor[[P, P, W], dtype], given: pl.Out[pl.Tensor[[P, P, W], dtype]],
             synthesized: pl.Out[pl.Tensor[[P, P, W], dtype]], sig_after: pl.Out[pl.Tensor[[P, SR, SW], pl.INT32]]):
        a_buf = pld.alloc_window_buffer([P, W], dtype=dtype)
        b_buf = pld.alloc_window_buffer([P, W], dtype=dtype)
        sig_buf = pld.alloc_window_buffer([SR, SW], dtype=pl.INT32)
        a = pld.window(a_buf, [P, W], dtype=dtype)
        b = pld.window(b_buf, [P, W], dtype=dtype)
        for r in pl.range(pld.world_size()):
            stage(x[r], a, device=r)
            stage(x[r], b, device=r)
        a = pld.tensor.allreduce(a, pld.window(sig_buf, [P, 1], dtype=pl.INT32), op=op)
        b = pld.tensor.allreduce(b, op=op)
        for r in pl.range(pld.world_size()):
            read(a, given[r], device=r)
            read(b, synthesized[r], device=r)
            read_sig(pld.window(sig_buf, [SR, SW], dtype=pl.INT32), sig_after[r], device=r)

    return mesh


@pl.jit.host
def ring(x: pl.Tensor[[P, P, W], pl.FP32], twice: pl.Out[pl.Tensor[[P, P, W], pl.FP32]],
         given: pl.Out[pl.Tensor[[P, P, W], pl.FP32]], sig_after: pl.Out[pl.Tensor[[P, SR, SW], pl.INT32]]):
    """allreduce(mode='ring'), FP32 Sum: twice back to back on a synthesized signal, then on a given one of the
    shape [2(P-1)+1, P] (a row more than the ring needs)."""
    a_buf = pld.alloc_window_buffer([P, W], dtype=pl.FP32)
    b_buf = pld.alloc_window_buffer([P, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([SR, SW], dtype=pl.INT32)
    a = pld.window(a_buf, [P, W], dtype=pl.FP32)
    b = pld.window(b_buf, [P, W], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        stage_f32(x[r], a, device=r)
        stage_f32(x[r], b, device=r)
    a = pld.tensor.allreduce(a, op=pld.ReduceOp.Sum, mode="ring")
    a = pld.tensor.allreduce(a, op=pld.ReduceOp.Sum, mode="ring")
    b = pld.tensor.allreduce(b, pld.window(sig_buf, [RING_ROWS, P], dtype=pl.INT32), mode="ring")
    for r in pl.range(pld.world_size()):
        read_f32(a, twice[r], device=r)
        read_f32(b, given[r], device=r)
        read_sig(pld.window(sig_buf, [SR, SW], dtype=pl.INT32), sig_after[r], device=r)


@pl.jit.host
def others(x: pl.Tensor[[P, P, W], pl.FP32], mine: pl.Tensor[[P, 1, W], pl.FP32], xi: pl.Tensor[[P, P, W], pl.INT32],
           broadcast: pl.Out[pl.Tensor[[P, P, W], pl.FP32]], gathered: pl.Out[pl.Tensor[[P, P, W], pl.FP32]],
           scattered: pl.Out[pl.Tensor[[P, P, W], pl.FP32]], exchanged: pl.Out[pl.Tensor[[P, P, W], pl.INT32]],
           sig_after: pl.Out[pl.Tensor[[P, SR, SW], pl.INT32]]):
    """barrier (twice), broadcast from the last rank, allgather, reduce_scatter and all_to_all, one after the other
    on one given [P, 1] signal."""
    sig_buf = pld.alloc_window_buffer([SR, SW], dtype=pl.INT32)
    bc_buf = pld.alloc_window_buffer([P, W], dtype=pl.FP32)
    mine_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    ag_buf = pld.alloc_window_buffer([P, W], dtype=pl.FP32)
    rs_buf = pld.alloc_window_buffer([P, W], dtype=pl.FP32)
    stage_buf = pld.alloc_window_buffer([P, W], dtype=pl.INT32)
    a2a_buf = pld.alloc_window_buffer([P, W], dtype=pl.INT32)
    sig = pld.window(sig_buf, [P, 1], dtype=pl.INT32)
    bc = pld.window(bc_buf, [P, W], dtype=pl.FP32)
    row = pld.window(mine_buf, [1, W], dtype=pl.FP32)
    ag = pld.window(ag_buf, [P, W], dtype=pl.FP32)
    rs = pld.window(rs_buf, [P, W], dtype=pl.FP32)
    st = pld.window(stage_buf, [P, W], dtype=pl.INT32)
    a2a = pld.window(a2a_buf, [P, W], dtype=pl.INT32)
    for r in pl.range(pld.world_size()):
        stage_f32(x[r], bc, device=r)
        stage_row(mine[r], row, device=r)
        stage_f32(x[r], rs, device=r)
        stage_i32(xi[r], st, device=r)
    sig = pld.tensor.barrier(sig)
    sig = pld.tensor.barrier(sig)
    bc = pld.tensor.broadcast(bc, sig, root=LAST)
    ag = pld.tensor.allgather(row, ag, sig)
    rs = pld.tensor.reduce_scatter(rs, sig, op=pld.ReduceOp.Sum)
    a2a = pld.tensor.all_to_all(st, a2a, sig)
    for r in pl.range(pld.world_size()):
        read_f32(bc, broadcast[r], device=r)
        read_f32(ag, gathered[r], device=r)
        read_f32(rs, scattered[r], device=r)
        read_i32(a2a, exchanged[r], device=r)
        read_sig(pld.window(sig_buf, [SR, SW], dtype=pl.INT32), sig_after[r], device=r)


# ---------------------------------------------------------------------------- the checks

def same(actual, expected, what):
    torch.testing.assert_close(actual, expected, rtol=0, atol=0, msg=lambda m: f"{what}: {m}")


def zero_signals(sig_after, what):
    assert not sig_after.any(), f"{what}: a signal window is not zero after the collectives: {sig_after.tolist()}"


REDUCE = {pld.ReduceOp.Sum: lambda t: t.sum(0, dtype=t.dtype), pld.ReduceOp.Max: lambda t: t.amax(0),
          pld.ReduceOp.Min: lambda t: t.amin(0), pld.ReduceOp.Prod: lambda t: t.prod(0, dtype=t.dtype)}

checked = []
for dtype, (ir_dtype, stage, read) in MOVERS.items():
    for op in pld.ReduceOp:
        kind = "pow2" if op == pld.ReduceOp.Prod else "int"
        x = all_inputs(dtype, kind=kind)
        given, synthesized = torch.zeros(P, P, W, dtype=dtype), torch.zeros(P, P, W, dtype=dtype)
        sig_after = torch.full((P, SR, SW), -1, dtype=torch.int32)
        mesh_allreduce(ir_dtype, op, stage, read)(x, given, synthesized, sig_after)
        expected = REDUCE[op](x)
        for r in range(P):  # every rank's result, which every rank has
            same(given[r], expected, f"mesh {op.name} {dtype} given signal, rank {r}")
            same(synthesized[r], expected, f"mesh {op.name} {dtype} synthesized signal, rank {r}")
        zero_signals(sig_after, f"mesh {op.name} {dtype}")
        checked.append(f"mesh-{op.name}-{dtype}")

x = all_inputs(torch.float32)
twice, given = torch.zeros(P, P, W), torch.zeros(P, P, W)
sig_after = torch.full((P, SR, SW), -1, dtype=torch.int32)
ring(x, twice, given, sig_after)
for r in range(P):
    same(twice[r], x.sum(0) * P, f"ring twice, rank {r}")
    same(given[r], x.sum(0), f"ring on a given signal, rank {r}")
zero_signals(sig_after, "ring")
checked.append("ring")

mine = all_inputs(torch.float32, rows=1)
xi = all_inputs(torch.int32)
results = [torch.zeros(P, P, W) for _ in range(3)] + [torch.zeros(P, P, W, dtype=torch.int32)]
sig_after = torch.full((P, SR, SW), -1, dtype=torch.int32)
others(x, mine, xi, *results, sig_after)
broadcast, gathered, scattered, exchanged = results
for r in range(P):
    same(broadcast[r], x[LAST], f"broadcast from rank {LAST}, rank {r}")
    same(gathered[r], mine[:, 0], f"allgather, rank {r}")
    same(scattered[r][r], x.sum(0)[r], f"reduce_scatter, rank {r}")  # row r of rank r; the other rows are scratch
    same(exchanged[r], xi[:, r], f"all_to_all, rank {r}")  # row s of rank r = rank s's row r
zero_signals(sig_after, "barrier, broadcast, allgather, reduce_scatter, all_to_all")
checked.append("others")

# The bindings under the builtins (pypto._core.comm_window_*) say what is wrong with a tensor before any rank waits.
t = windows.allocate(4 * 32).view([4, 8], torch.float32)
sig = windows.allocate(4 * P).view([P, 1], torch.int32)
for call, error, text in [
    (lambda: _core.comm_window_allreduce(t[:, ::2], sig, 0, False), ValueError, "is not contiguous"),
    (lambda: _core.comm_window_allreduce(torch.zeros(8), sig, 0, False), ValueError, "is not inside any window"),
    (lambda: _core.comm_window_allreduce(t, sig.view(torch.float32), 0, False), ValueError, "must be an INT32"),
    (lambda: _core.comm_window_allreduce(t, sig, 7, False), ValueError, "op"),
    (lambda: _core.comm_window_barrier(sig[:1]), ValueError, "needs at least"),
]:
    try:
        call()
    except error as e:
        assert text in str(e), (text, str(e))
    else:
        raise AssertionError(f"accepted: expected {error.__name__} saying {text!r}")
_core.comm_window_allreduce(t, sig, 0, False)  # and a good call still works after the rejected ones
print(f"rank {ME} of {P} ok ({len(checked)} orchestrators checked)", flush=True)
