"""A @pl.jit.host orchestrator compiles to IR, goes through the host pipeline (SynthesizeAllReduceSignals,
MaterializeCommDomainScopes, LowerHostTensorCollectives) and becomes Python over the runtime (the pld_host backend),
all in this process without starting a rank; its mistakes are errors at the user's line."""

import pytest
import torch

import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.jit.host_program import HostProgram
from pypto.language.errors import ParseError, PlacementError
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedError
from pypto.runtime.host_run import HostRun

NR = pl.dynamic("NR")
W = 64


@pl.jit.incore
def publish(g: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(g, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def publish_dev(g: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return publish(g, win)


@pl.jit.incore
def collect(win: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(win, [0, 0], [1, W]), [0, 0], out)


@pl.jit
def collect_dev(win: pld.DistributedTensor[[1, W], pl.FP32], out: pl.Out[pl.Tensor[[1, W], pl.FP32]]):
    return collect(win, out)


@pl.jit.host
def grad_sum(g: pl.Tensor[[NR, 1, W], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
    gbuf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    for r in pl.range(pld.world_size()):
        publish_dev(g[r], pld.window(gbuf, [1, W], dtype=pl.FP32), device=r)
    gw = pld.window(gbuf, [1, W], dtype=pl.FP32)
    gw = pld.tensor.allreduce(gw, op=pld.ReduceOp.Sum, core_num=4)
    for r in pl.range(pld.world_size()):
        collect_dev(gw, out[r], device=r)


def host_function(program: ir.Program) -> str:
    return ir.as_python(program)


def test_a_host_orchestrator_lowers_through_the_host_pipeline():
    text = host_function(grad_sum.lower(torch.zeros(3, 1, W), torch.zeros(3, 1, W)))
    assert "level=pl.Level.HOST, role=pl.Role.Orchestrator" in text
    # SynthesizeAllReduceSignals: a [world_size, core_num] INT32 window of its own.
    assert "import pypto.language.distributed as pld" in text
    assert "gw_signal_ranks: pl.Scalar[pl.INT64] = pld.system.world_size()" in text
    assert "pld.tensor.window(gw_signal_buffer, [gw_signal_ranks, pl.const(4, pl.INT64)]" in text
    # MaterializeCommDomainScopes: both buffers are in the domain of every rank.
    assert text.count('"comm_domain": "comm_d0"') >= 2 and "comm_devices" not in text
    # LowerHostTensorCollectives: one builtin dispatch per device, in a loop over the world.
    assert 'program="builtin.tensor.allreduce"' in text
    assert "pld.tensor.allreduce(" not in text


def test_the_host_backend_writes_python_over_the_runtime():
    host = grad_sum.compile(torch.zeros(2, 1, W), torch.zeros(2, 1, W))
    assert isinstance(host, HostProgram)
    source = host.source
    assert "def grad_sum(rt, g, out):" in source
    assert "comm_d0 = rt.comm_domain('comm_d0', None)" in source
    assert "rt.alloc_window_buffer(comm_d0, 'gbuf', " in source
    assert "rt.dispatch('publish_dev', r, [rt.rank_slice(g, r), rt.window(gbuf, [1, 64], 'FP32')], (" in source
    assert "test_host_compile.py', 46, 46, 8, " in source  # where the dispatch's errors point
    assert "rt.builtin('tensor.allreduce', device, [gw, gw_signal], {'op': 0, 'core_num': 4})" \
        in source
    assert set(host.programs) == {"publish_dev", "collect_dev"}
    # Compiled once per specialization: the rank count is dynamic (NR), so another world size reuses it.
    assert grad_sum.compile(torch.zeros(4, 1, W), torch.zeros(4, 1, W)) is host


@pl.jit.host
def two_domains(x: pl.Tensor[[NR, 1, W], pl.FP32]):
    a_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    b_buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
    for r in pl.range(2):
        publish_dev(x[r], pld.window(a_buf, [1, W], dtype=pl.FP32), device=r)
    for r in pl.range(1, 3):
        publish_dev(x[r], pld.window(b_buf, [1, W], dtype=pl.FP32), device=r)
    b = pld.window(b_buf, [1, W], dtype=pl.FP32)
    sig_buf = pld.alloc_window_buffer([3, 1], dtype=pl.INT32)
    pld.tensor.barrier(pld.window(sig_buf, [3, 1], dtype=pl.INT32))
    b = pld.tensor.allreduce(b, pld.window(sig_buf, [3, 1], dtype=pl.INT32))


def test_buffers_dispatched_to_different_devices_get_their_own_domains():
    source = two_domains.compile(torch.zeros(3, 1, W)).source
    assert "comm_d0 = rt.comm_domain('comm_d0', [0, 1])" in source
    assert "comm_d1 = rt.comm_domain('comm_d1', [1, 2])" in source
    assert "rt.alloc_window_buffer(comm_d1, 'b_buf'" in source
    # The signal buffer is used with b's window in a collective: one domain, {1, 2}, so the builtin's parts
    # are a sequence of dispatches to devices 1 and 2.
    assert "rt.alloc_window_buffer(comm_d1, 'sig_buf'" in source
    assert "rt.builtin('tensor.barrier', 1, " in source and "rt.builtin('tensor.barrier', 2, " in source
    assert "rt.builtin('tensor.allreduce', 0, " not in source


def compile_error(fn, *args):
    with pytest.raises(pypto.Error) as info:
        fn.compile(*args)
    return info.value


def test_a_buffer_must_be_named_and_viewed():
    @pl.jit.host
    def inline(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], pld.window(pld.alloc_window_buffer(256), [1, W], dtype=pl.FP32), device=r)

    assert "inside an expression" in str(compile_error(inline, torch.zeros(2, 1, W)))

    @pl.jit.host
    def unviewed(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        spare = pld.alloc_window_buffer(256)
        buf = pld.alloc_window_buffer(256)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], pld.window(buf, [1, W], dtype=pl.FP32), device=r)

    error = compile_error(unviewed, torch.zeros(2, 1, W))
    assert "window buffer 'spare' is allocated but never viewed" in str(error)


def test_a_host_dispatches_chip_programs_not_kernels():
    @pl.jit.host
    def kernel_direct(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
        for r in pl.range(pld.world_size()):
            collect(x[r], y[r], device=r)

    error = compile_error(kernel_direct, torch.zeros(2, 1, W), torch.zeros(2, 1, W))
    assert "'collect' is a @pl.jit.incore kernel" in str(error)


def test_a_view_no_dispatch_receives_is_an_error():
    @pl.jit.host
    def never_dispatched(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        view = pld.window(buf, [1, W], dtype=pl.FP32)

    error = compile_error(never_dispatched, torch.zeros(2, 1, W))
    assert "no chip program or host collective receives a view of window buffer 'buf'" in str(error)


def test_an_allocation_inside_a_loop_is_an_error():
    @pl.jit.host
    def per_rank(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        for r in pl.range(pld.world_size()):
            buf = pld.alloc_window_buffer(256)
            publish_dev(x[r], pld.window(buf, [1, W], dtype=pl.FP32), device=r)

    error = compile_error(per_rank, torch.zeros(2, 1, W))
    assert "'buf' is allocated inside a loop" in str(error)
    assert "test_host_compile.py:" in str(error)


def test_a_device_the_compiler_cannot_follow_is_an_error():
    @pl.jit.host
    def shifted(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], pld.window(buf, [1, W], dtype=pl.FP32), device=(r + 1) % pld.world_size())

    error = compile_error(shifted, torch.zeros(2, 1, W))
    assert "cannot tell which devices it reaches" in str(error)


def test_an_allreduce_without_a_signal_in_a_loop_is_an_error():
    @pl.jit.host
    def rounds(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        gw = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], gw, device=r)
        for i in pl.range(3):
            gw = pld.tensor.allreduce(gw)

    error = compile_error(rounds, torch.zeros(2, 1, W))
    assert "without a signal window inside a loop" in str(error)


def test_dispatching_a_kernel_or_forgetting_device_is_an_error_at_the_line():
    @pl.jit.host
    def no_device(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], pld.window(buf, [1, W], dtype=pl.FP32))

    with pytest.raises(ParseError, match=r"takes its arguments by position and device=r"):
        no_device.compile(torch.zeros(2, 1, W))


def test_compute_and_scopes_belong_to_chip_programs():
    @pl.jit.host
    def computes(x: pl.Tensor[[NR, 1, W], pl.FP32], y: pl.Out[pl.Tensor[[NR, 1, W], pl.FP32]]):
        y = pl.add(x, x)

    with pytest.raises(PlacementError, match=r"computing is the chip programs' job"):
        computes.compile(torch.zeros(2, 1, W), torch.zeros(2, 1, W))


def test_window_buffers_belong_to_the_host():
    @pl.jit.incore
    def allocates(x: pl.Tensor[[1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(256)
        return x

    with pytest.raises(PlacementError, match=r"belongs to the @pl.jit.host orchestrator, not to a kernel"):
        allocates.compile(torch.zeros(1, W))


# ---------------------------------------------------------------------------- the runtime side, without ranks

def test_comm_domains_number_their_members_densely():
    run = HostRun("h", {}, RunConfig(), rank=2, world=3)
    domain = run.comm_domain("comm_d1", [2, 1])
    assert domain.members == (1, 2) and domain.rank == 1 and domain.size == 2
    assert run.comm_domain("comm_d0", [0, 1]).rank is None
    assert run.comm_domain("comm_d2", None).members == (0, 1, 2)
    with pytest.raises(DistributedError, match=r"dispatches to device 3 but the program runs on 3 ranks"):
        run.comm_domain("comm_d3", [0, 3])


def test_the_runtime_checks_devices_and_rank_slices():
    run = HostRun("h", {"prog": publish_dev}, RunConfig(), rank=0, world=2)
    with pytest.raises(DistributedError, match=r"the device is a rank in \[0, 2\)"):
        run.dispatch("prog", 2, [])
    with pytest.raises(DistributedError, match=r"one leading row per rank"):
        run.rank_slice(torch.zeros(2, 1, W), 2)
    assert run.alloc_window_buffer(run.comm_domain("comm_d0", [1]), "buf", 64) is None


def test_host_collectives_are_checked_when_compiled():
    @pl.jit.host
    def ring_max(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        gw = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], gw, device=r)
        gw = pld.tensor.allreduce(gw, op=pld.ReduceOp.Max, mode="ring")

    assert "reduces FP32 windows with pld.ReduceOp.Sum only" in str(compile_error(ring_max, torch.zeros(2, 1, W)))

    @pl.jit.host
    def one_buffer(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer(4096)
        gw = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], gw, device=r)
        gw = pld.tensor.allreduce(gw, pld.window(buf, [4, 1], dtype=pl.INT32))

    error = compile_error(one_buffer, torch.zeros(2, 1, W))
    assert "two of its operands view window buffer 'buf'" in str(error)

    @pl.jit.host
    def ring_blocks(x: pl.Tensor[[NR, 1, W], pl.FP32]):
        buf = pld.alloc_window_buffer([1, W], dtype=pl.FP32)
        gw = pld.window(buf, [1, W], dtype=pl.FP32)
        for r in pl.range(pld.world_size()):
            publish_dev(x[r], gw, device=r)
        gw = pld.tensor.allreduce(gw, mode="ring", core_num=2)

    with pytest.raises(ParseError, match=r"'core_num' applies to mode='mesh' only"):
        ring_blocks.compile(torch.zeros(2, 1, W))


@pl.jit.incore
def stage_counts(x: pl.Tensor[[4, W], pl.FP32], counts: pl.Tensor[[2, 1], pl.INT32],
                 stage: pl.InOut[pld.DistributedTensor[[4, W], pl.FP32]],
                 sent: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]):
    pl.store(pl.load(x, [0, 0], [4, W]), [0, 0], stage)
    return pl.store(pl.load(counts, [0, 0], [2, 1]), [0, 0], sent)


@pl.jit
def stage_counts_dev(x: pl.Tensor[[4, W], pl.FP32], counts: pl.Tensor[[2, 1], pl.INT32],
                     stage: pl.InOut[pld.DistributedTensor[[4, W], pl.FP32]],
                     sent: pl.InOut[pld.DistributedTensor[[2, 1], pl.INT32]]):
    return stage_counts(x, counts, stage, sent)


def test_a_host_all_to_all_v_lowers_to_its_builtin():
    @pl.jit.host
    def exchange(x: pl.Tensor[[NR, 4, W], pl.FP32], counts: pl.Tensor[[NR, 2, 1], pl.INT32]):
        stage_buf = pld.alloc_window_buffer([4, W], dtype=pl.FP32)
        target_buf = pld.alloc_window_buffer([4, W], dtype=pl.FP32)
        sent_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
        recv_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
        sig_buf = pld.alloc_window_buffer([2, 1], dtype=pl.INT32)
        stage = pld.window(stage_buf, [4, W], dtype=pl.FP32)
        sent = pld.window(sent_buf, [2, 1], dtype=pl.INT32)
        for r in pl.range(2):
            stage_counts_dev(x[r], counts[r], stage, sent, device=r)
        target = pld.tensor.all_to_all_v(stage, pld.window(target_buf, [4, W], dtype=pl.FP32),
                                         pld.window(sig_buf, [2, 1], dtype=pl.INT32), sent,
                                         pld.window(recv_buf, [2, 1], dtype=pl.INT32))

    source = exchange.compile(torch.zeros(2, 4, W), torch.zeros(2, 2, 1, dtype=torch.int32)).source
    assert "rt.builtin('tensor.all_to_all_v', 0, " in source and "rt.builtin('tensor.all_to_all_v', 1, " in source
    assert "comm_d0 = rt.comm_domain('comm_d0', [0, 1])" in source
