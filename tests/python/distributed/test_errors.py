"""Mistakes with distributed programs that are caught in this process, without starting any rank: at the user's
line, naming the parameter or op; and the IR of window parameters prints as pld.DistributedTensor and parses back."""

import pytest
import torch

import pypto
import pypto.language as pl
import pypto.language.distributed as pld
from pypto import ir
from pypto.jit.errors import KernelArgumentError
from pypto.language._ops import KernelOnlyError
from pypto.runtime import RunConfig
from pypto.runtime.distributed import DistributedConfig, DistributedError

W = 64


@pl.jit.incore
def stage(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return pl.store(pl.load(x, [0, 0], [1, W]), [0, 0], win)


@pl.jit
def stage_dev(x: pl.Tensor[[1, W], pl.FP32], win: pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]):
    return stage(x, win)


@pl.jit.incore
def notify_plain(sig: pl.InOut[pl.Tensor[[1, 8], pl.INT32]]):
    pld.system.notify(sig, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
    return sig


@pl.jit.incore
def wait_fp32(sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.FP32]]):
    pld.system.wait(sig, [0, 0], 1, cmp=pld.WaitCmp.Ge)
    return sig


def test_a_plain_tensor_for_a_window_parameter_is_an_error_at_the_call():
    with pytest.raises(KernelArgumentError) as caught:
        stage_dev(torch.zeros(1, W), torch.zeros(1, W))  # the window
    message = str(caught.value)
    assert "parameter 'win' is a window (pl.InOut[pld.DistributedTensor[[1, W], pl.FP32]]) but got a plain tensor" \
        in message
    assert "test_errors.py:" in message and "stage_dev(torch.zeros(1, W), torch.zeros(1, W))  # the window" in message


def test_a_kernel_op_given_a_plain_tensor_names_the_op():
    with pytest.raises(pypto.Error) as caught:
        notify_plain.lower()
    message = str(caught.value)
    assert "system.notify: argument 'signal' has type Tensor[[1, 8], INT32], not a window" in message
    assert "pld.system.notify(sig, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)" in message
    assert "hint: the signature is system.notify(signal, peer, offsets, value, op=...)" in message


def test_a_signal_must_be_int32():
    with pytest.raises(pypto.Error, match=r"signal 'signal' is a FP32 window; signals are INT32 cells"):
        wait_fp32.lower()


def test_device_outside_a_host_orchestrator_is_an_error():
    with pytest.raises(KernelArgumentError) as caught:
        stage_dev(torch.zeros(1, W), torch.zeros(1, W), device=0)
    assert "device= sends a chip program to one rank, which only a @pl.jit.host orchestrator does" in str(caught.value)
    assert "device=0)" in str(caught.value)


@pytest.mark.parametrize("call", [lambda: pld.world_size(), lambda: pld.alloc_window_buffer(64),
                                  lambda: pld.window(None, [1, W], dtype=pl.FP32)])
def test_host_orchestrator_functions_outside_one_raise(call):
    with pytest.raises(KernelOnlyError, match=r"runs in a @pl.jit.host orchestrator, which is compiled"):
        call()


@pytest.mark.parametrize("kwargs, match", [
    ({"world_size": 0}, r"world_size=...\) takes a positive rank count, got 0"),
    ({"world_size": 2.0}, r"takes a positive rank count"),
    ({"device_ids": [0, 0]}, r"distinct non-negative device ids"),
    ({"device_ids": [0, -1]}, r"distinct non-negative device ids"),
    ({"device_ids": []}, r"distinct non-negative device ids"),
    ({"device_ids": [0, 1], "world_size": 3}, r"world_size=3 but 2 device_ids"),
    ({"wait_timeout_s": 0}, r"wait_timeout_s=...\) takes a positive number of seconds"),
])
def test_distributed_config_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        DistributedConfig(**kwargs)


def test_distributed_config_rank_count():
    assert DistributedConfig(device_ids=[3, 1, 2]).ranks_to_start == 3
    assert DistributedConfig(device_ids=(5,)).device_ids == (5,)
    assert DistributedConfig(world_size=2).ranks_to_start == 2
    assert DistributedConfig().ranks_to_start == 4


def test_a_host_orchestrator_needs_a_distributed_config():
    @pl.jit.host
    def nothing(x: pl.Tensor[[1, W], pl.FP32]):
        pass

    with pytest.raises(KernelArgumentError, match=r"takes a pypto.runtime.DistributedConfig, got int"):
        nothing(torch.zeros(1, W), config=RunConfig(distributed_config=3))


@pl.program
class Comm:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, sig: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]],
          x: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]) -> pld.DistributedTensor[[1, 64], pl.FP32]:
        ctx = pld.get_comm_ctx(sig)
        me = pld.rank(ctx)
        n = pld.nranks(ctx)
        pld.system.notify(sig, (me + 1) % n, [me, 0], 1, op=pld.NotifyOp.AtomicAdd)
        pld.system.wait(sig, [me, 0], 1, cmp=pld.WaitCmp.Ge)
        t = pld.tile.remote_load(x, (me + n - 1) % n, [0, 0], [1, 64])
        pld.tile.remote_store(t, x, me, [0, 0], atomic=pld.AtomicType.Add)
        pld.tensor.put(x, (me + 1) % n, x, [0, 0], [0, 0], [1, 32])
        return x


def test_window_parameters_print_as_distributed_tensors_and_parse_back():
    text = ir.as_python(Comm)
    assert "import pypto.language.distributed as pld" in text
    assert "sig: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]]" in text
    assert "x: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]" in text
    assert "pld.system.notify(" in text and "pld.tile.remote_load(" in text and "pld.tensor.put(" in text
    again = pl.parse(text)
    assert ir.structural_equal(Comm, again)
    assert ir.as_python(again) == text


def test_a_jit_kernel_with_window_parameters_lowers_and_prints_them():
    text = ir.as_python(stage.lower())
    assert "win: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]]" in text
    assert ir.as_python(pl.parse(text)) == text      # after memory planning: the printed form is a fixpoint
