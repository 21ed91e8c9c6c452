"""Activations built from exp and reciprocal: ReLU, SiLU and SwiGLU.

    python examples/beginner/04_activation.py
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def relu(x: pl.Tensor[[32, 256], pl.FP32], out: pl.Out[pl.Tensor[[32, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.relu(pl.load(x, [0, 0], [32, 256])), [0, 0], out)
    return out


@pl.jit
def swiglu(gate: pl.Tensor[[32, 256], pl.FP32], up: pl.Tensor[[32, 256], pl.FP32],
           out: pl.Out[pl.Tensor[[32, 256], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        g = pl.load(gate, [0, 0], [32, 256])
        u = pl.load(up, [0, 0], [32, 256])
        sigmoid = pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0))
        silu = pl.mul(g, sigmoid)
        pl.store(pl.mul(silu, u), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    gate, up = torch.randn(32, 256), torch.randn(32, 256)
    out = torch.zeros(32, 256)
    relu(gate, out, config=RunConfig())
    torch.testing.assert_close(out, torch.relu(gate))
    swiglu(gate, up, out, config=RunConfig())
    torch.testing.assert_close(out, torch.nn.functional.silu(gate) * up, rtol=1e-5, atol=1e-5)
    print("OK")


if __name__ == "__main__":
    main()
