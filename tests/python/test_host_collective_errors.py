"""What is wrong with a host collective (pld.tensor.* in a @pl.jit.host orchestrator) is an error before any rank
communicates: at compile time (orchestrator.compile(...), no ranks) where the program says it, otherwise in the
host builtin of pypto.runtime.host_run before it calls the engine (checked here on windows over plain memory,
with no engine). host_collectives_ranks.py runs the good calls on 2 and 3 ranks."""

import ctypes

import pytest
import torch

import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.runtime import RunConfig, windows
from pypto.runtime.distributed import DistributedError
from pypto.runtime.host_run import HostRun

NR = pl.dynamic("NR")
W = 64


@pl.jit.incore
def publish32(g: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(g, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def publish32_dev(g: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return publish32(g, win)


@pl.jit.incore
def publish16(g: pl.Tensor[[1, W], pl.FP16], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP16]]):
    return pl.store(pl.load(g, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def publish16_dev(g: pl.Tensor[[1, W], pl.FP16], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP16]]):
    return publish16(g, win)


@pl.jit.incore
def publish_i32(g: pl.Tensor[[1, W], pl.INT32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.INT32]]):
    return pl.store(pl.load(g, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def publish_i32_dev(g: pl.Tensor[[1, W], pl.INT32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.INT32]]):
    return publish_i32(g, win)


PUBLISH = {pl.FP32: publish32_dev, pl.FP16: publish16_dev, pl.INT32: publish_i32_dev}
TORCH = {pl.FP32: torch.float32, pl.FP16: torch.float16, pl.INT32: torch.int32}


def compile_error(orchestrator, *args) -> str:
    with pytest.raises(pypto.Error) as info:
        orchestrator.compile(*args)
    return str(info.value)


# ---------------------------------------------------------------------------- at compile time

def allreduce_with(dtype, op, mode, core_num):
    """An orchestrator whose only collective is pld.tensor.allreduce(data, op=op, mode=mode, core_num=core_num)
    on a [1, W] `dtype` window, with a signal the compiler synthesizes."""
    publish = PUBLISH[dtype]

    @pl.jit.host
    def reduce(g: pl.Tensor[[NR, 1, W], dtype]):
        buf = pld.alloc_window_buffer([1, W], dtype=dtype)
        data = pld.window(buf, [1, W], dtype=dtype)
        for r in pl.range(pld.world_size()):
            publish(g[r], data, device=r)
        data = pld.tensor.allreduce(data, op=op, mode=mode, core_num=core_num)

    return reduce


RING_SUMS_FP32 = "reduces FP32 windows with pld.ReduceOp.Sum only, this one is"


@pytest.mark.parametrize("dtype, op, mode, core_num, text", [
    (pl.FP32, pld.ReduceOp.Sum, "tree", 1, "keyword 'mode' must be 'mesh' or 'ring', got 'tree'"),
    (pl.FP32, pld.ReduceOp.Max, "ring", 1, f"{RING_SUMS_FP32} FP32 with op 1"),
    (pl.FP32, pld.ReduceOp.Min, "ring", 1, f"{RING_SUMS_FP32} FP32 with op 2"),
    (pl.FP32, pld.ReduceOp.Prod, "ring", 1, f"{RING_SUMS_FP32} FP32 with op 3"),
    (pl.FP16, pld.ReduceOp.Sum, "ring", 1, f"{RING_SUMS_FP32} FP16 with op 0"),
    (pl.INT32, pld.ReduceOp.Sum, "ring", 1, f"{RING_SUMS_FP32} INT32 with op 0"),
    (pl.FP32, pld.ReduceOp.Sum, "ring", 2, "keyword 'core_num' applies to mode='mesh' only"),
    (pl.FP32, pld.ReduceOp.Sum, "mesh", 0, "keyword 'core_num' must be a positive block count, got 0"),
    (pl.FP32, 7, "mesh", 1, "keyword 'op' must be one of pld.ReduceOp.Sum (0), Max (1), Min (2), Prod (3), got 7"),
])
def test_allreduce_options_the_host_cannot_run_are_compile_errors(dtype, op, mode, core_num, text):
    reduce = allreduce_with(dtype, op, mode, core_num)
    assert text in compile_error(reduce, torch.zeros(2, 1, W, dtype=TORCH[dtype]))


@pytest.mark.parametrize("dtype, op, mode, core_num", [
    (pl.FP32, pld.ReduceOp.Sum, "ring", 1), (pl.FP16, pld.ReduceOp.Max, "mesh", 1),
    (pl.INT32, pld.ReduceOp.Prod, "mesh", 1), (pl.FP32, pld.ReduceOp.Sum, "mesh", 4)])
def test_the_allreduce_rejections_leave_good_options_alone(dtype, op, mode, core_num):
    """Each rejected case above differs from one of these in a single option: these compile, and the lowered
    orchestrator runs the builtin allreduce on every rank with exactly the options the program gave."""
    compiled = allreduce_with(dtype, op, mode, core_num).compile(torch.zeros(2, 1, W, dtype=TORCH[dtype]))
    text = ir.as_python(compiled.program)
    assert f"data: pld.DistributedTensor[[1, {W}], {dtype}] = pld.tensor.window(" in text, text
    assert (f'program="builtin.tensor.allreduce", attrs={{"comm_domain": "comm_d0", "op": {int(op)}, '
            f'"mode": "{mode}", "core_num": {core_num}}})') in text, text


def test_a_barrier_needs_a_signal_window():
    @pl.jit.host
    def bare(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], pld.window(buf, [1, W], dtype=pl.FP32), device=r)
        pld.tensor.barrier()

    assert "tensor.barrier takes 1 positional argument(s) but 0 were given" in compile_error(bare, torch.zeros(2, 1, W))


def test_a_signal_must_be_an_int32_window():
    @pl.jit.host
    def float_signal(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        data = pld.window(buf, [1, W], dtype=pl.FP32)
        sig = pld.window(sig_buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], data, device=r)
            publish32_dev(g[r], sig, device=r)
        data = pld.tensor.broadcast(data, sig, root=0)

    assert "the signal window 'signal' must be INT32 ([NR, 1]), got FP32" in \
        compile_error(float_signal, torch.zeros(2, 1, W))


def test_signal_and_data_must_be_different_allocations():
    @pl.jit.host
    def shared(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        data = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], data, device=r)
        data = pld.tensor.allreduce(data, pld.window(buf, [pld.world_size(), 1], dtype=pl.INT32))

    error = compile_error(shared, torch.zeros(2, 1, W))
    assert "pld.tensor.allreduce takes windows of different allocations, but two of its operands view window " \
        "buffer 'buf'" in error


def test_broadcast_needs_a_static_root_of_at_least_zero():
    def broadcast_from(root):
        @pl.jit.host
        def bcast(g: pl.Tensor[[NR, 1, W], pl.FP32]):
            buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
            sig_buf = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
            data = pld.window(buf, [1, W], dtype=pl.FP32)
            for r in pl.range(pld.world_size()):
                publish32_dev(g[r], data, device=r)
            data = pld.tensor.broadcast(data, pld.window(sig_buf, [pld.world_size(), 1], dtype=pl.INT32), root=root)

        return bcast

    assert "keyword 'root' must be a rank >= 0" in compile_error(broadcast_from(-1), torch.zeros(2, 1, W))
    broadcast_from(1).compile(torch.zeros(2, 1, W))

    @pl.jit.host
    def rootless(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
        data = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], data, device=r)
        data = pld.tensor.broadcast(data, pld.window(sig_buf, [pld.world_size(), 1], dtype=pl.INT32))

    assert "tensor.broadcast is missing the required keyword argument 'root'" in \
        compile_error(rootless, torch.zeros(2, 1, W))


def test_reduce_scatter_sums_only():
    @pl.jit.host
    def scatter_max(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
        data = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], data, device=r)
        data = pld.tensor.reduce_scatter(data, pld.window(sig_buf, [pld.world_size(), 1], dtype=pl.INT32),
                                         op=pld.ReduceOp.Max)

    assert "reduce_scatter supports op=pld.ReduceOp.Sum only" in compile_error(scatter_max, torch.zeros(2, 1, W))


def test_allgather_needs_two_windows():
    @pl.jit.host
    def onto_itself(g: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        sig_buf = pld.alloc_window_buffer([pld.world_size(), 1], dtype=pl.INT32)
        data = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish32_dev(g[r], data, device=r)
        data = pld.tensor.allgather(data, data, pld.window(sig_buf, [pld.world_size(), 1], dtype=pl.INT32))

    assert "the source and out must be different tensors" in compile_error(onto_itself, torch.zeros(2, 1, W))


# ---------------------------------------------------------------------------- at run time, before the engine
# What depends on the rank count (which the compiler leaves dynamic): the host builtins check it on the rank that
# runs them. Windows over plain memory stand in for window buffers; every case raises before any engine call.

def fake_buffer(nbytes: int, members: tuple[int, ...]) -> windows.WindowBuffer:
    memory = (ctypes.c_uint8 * nbytes)()
    buffer = windows.WindowBuffer(-1, ctypes.addressof(memory), nbytes, nbytes, members, 0)
    buffer.memory = memory  # kept alive as long as the buffer
    return buffer


def fake_window(shape, dtype=torch.float32, ranks=3):
    nbytes = max(32, torch.Size(shape).numel() * dtype.itemsize)
    return fake_buffer(nbytes, tuple(range(ranks))).view(shape, dtype)


def run_on(ranks: int) -> HostRun:
    return HostRun("h", {}, RunConfig(), rank=0, world=ranks)


def builtin_error(collective: str, args, options=None, ranks: int = 3) -> str:
    with pytest.raises(DistributedError) as info:
        run_on(ranks).builtin(collective, 0, args, options or {})
    return str(info.value)


@pytest.mark.parametrize("ranks", [2, 3])
def test_a_ring_whose_data_does_not_split_into_one_segment_per_rank_is_refused(ranks):
    numel = 7 if ranks == 2 else 8  # odd for 2 ranks, not a multiple of 3 for 3
    data = fake_window([1, numel], ranks=ranks)
    sig = fake_window([2 * (ranks - 1) + 1, ranks], torch.int32, ranks)
    error = builtin_error("tensor.allreduce", [data, sig], {"mode": "ring"}, ranks)
    assert f"{numel} elements do not split into {ranks} equal segments" in error


def test_the_host_ring_runs_on_at_most_16_ranks():
    data = fake_window([17, 16], ranks=17)
    sig = fake_window([33, 17], torch.int32, 17)
    error = builtin_error("tensor.allreduce", [data, sig], {"mode": "ring"}, 17)
    assert "runs on at most 16 ranks, this domain has 17" in error


def test_the_builtins_refuse_a_signal_of_the_datas_allocation():
    buffer = fake_buffer(256, (0, 1, 2))
    data, sig = buffer.view([1, W], torch.float32), buffer.view([3, 1], torch.int32)
    assert "the signal and the data must be windows of different pld.alloc_window_buffer allocations" in \
        builtin_error("tensor.allreduce", [data, sig])
    assert "different pld.alloc_window_buffer allocations" in builtin_error("tensor.broadcast", [data, sig],
                                                                            {"root": 0})


def test_a_broadcast_root_outside_the_domain_is_refused():
    data, sig = fake_window([1, W]), fake_window([3, 1], torch.int32)
    error = builtin_error("tensor.broadcast", [data, sig], {"root": 3})
    assert "root is a rank of the window's comm domain, in [0, 3)" in error


def test_windows_need_one_row_per_rank():
    sig = fake_window([3, 1], torch.int32)
    mine, two_rows = fake_window([1, W]), fake_window([2, W])
    assert "must have 3 rows of mine's 64" in builtin_error("tensor.allgather", [mine, two_rows, sig])
    assert "needs 3 rows, one per rank" in builtin_error("tensor.reduce_scatter", [two_rows, sig])
    assert "must have one dtype and 3 rows, one per rank" in \
        builtin_error("tensor.all_to_all", [fake_window([2, W]), two_rows, sig])


def test_a_signal_that_is_not_a_window_is_refused():
    # A host tensor where a signal window belongs.
    data = fake_window([1, W])
    host_tensor = torch.zeros(3, 1, dtype=torch.int32)
    assert "the signal must be an INT32 window [NR, 1]" in builtin_error("tensor.barrier", [host_tensor])
    assert "the signal must be an INT32 window [3, 1]" in builtin_error("tensor.allreduce", [data, host_tensor])
