"""A parameter annotated with a pl.TensorView keeps its view through specialization: only its valid region counts,
on the simulator and in the torch script alike."""

import torch

import pypto.language as pl
from pypto.debug import load_torch_script, torch_codegen


@pl.jit
def partial_row_sums(x: pl.Tensor[[64, 64], pl.FP32, pl.TensorView(valid_shape=[64, 20])],
                     y: pl.Out[pl.Tensor[[64, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        y[:] = pl.row_sum(x)
    return y


def test_the_view_is_in_the_specialized_parameter_type():
    x, y = torch.randn(64, 64), torch.zeros(64, 1)
    text = partial_row_sums.lower(x, y).as_python()
    assert "pl.TensorView(valid_shape=[64, 20]" in text


def test_only_the_valid_columns_are_summed_on_the_simulator_and_in_the_script():
    x, y = torch.randn(64, 64), torch.zeros(64, 1)
    partial_row_sums(x, y)
    want = x[:, :20].sum(dim=1, keepdim=True)
    torch.testing.assert_close(y, want)
    script = load_torch_script(torch_codegen(partial_row_sums.lower(x, y)))
    scripted = torch.zeros(64, 1)
    script.ENTRY(x.clone(), scripted)
    torch.testing.assert_close(scripted, want)
