"""A SwiGLU feed-forward block: out = (silu(x @ W_gate) * (x @ W_up)) @ W_down.

    python examples/models/01_ffn.py

Three tasks: the two input projections on the cube core (FP16 in, FP32
out), the gating on a vector core, 16 rows at a time (cast back to FP16 for
the cube), and
the down projection. Intermediate tensors live in device memory.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

TOKENS, HIDDEN, FFN = 64, 128, 256


@pl.jit
def ffn(x: pl.Tensor[[TOKENS, HIDDEN], pl.FP16], w_gate: pl.Tensor[[HIDDEN, FFN], pl.FP16],
        w_up: pl.Tensor[[HIDDEN, FFN], pl.FP16], w_down: pl.Tensor[[FFN, HIDDEN], pl.FP16],
        out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP32]]):
    gate = pl.create_tensor([TOKENS, FFN], pl.FP32)
    up = pl.create_tensor([TOKENS, FFN], pl.FP32)
    hidden = pl.create_tensor([TOKENS, FFN], pl.FP16)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_proj"):
        gate[:] = pl.matmul(x, w_gate, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="up_proj"):
        up[:] = pl.matmul(x, w_up, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swiglu"):
        for r in pl.range(0, TOKENS, 16):
            g = pl.load(gate, [r, 0], [16, FFN])
            u = pl.load(up, [r, 0], [16, FFN])
            silu = pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0)))
            pl.store(pl.cast(pl.mul(silu, u), pl.FP16), [r, 0], hidden)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="down_proj"):
        out[:] = pl.matmul(hidden, w_down, out_dtype=pl.FP32)
    return out


def reference(x, w_gate, w_up, w_down):
    gate, up = x.float() @ w_gate.float(), x.float() @ w_up.float()
    hidden = (torch.nn.functional.silu(gate) * up).half()
    return hidden.float() @ w_down.float()


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(TOKENS, HIDDEN).half()
    w_gate, w_up = (torch.randn(HIDDEN, FFN) / HIDDEN**0.5).half(), (torch.randn(HIDDEN, FFN) / HIDDEN**0.5).half()
    w_down = (torch.randn(FFN, HIDDEN) / FFN**0.5).half()
    out = torch.zeros(TOKENS, HIDDEN)
    ffn(x, w_gate, w_up, w_down, out, config=RunConfig())
    torch.testing.assert_close(out, reference(x, w_gate, w_up, w_down), rtol=2e-3, atol=2e-3)
    print("OK")


if __name__ == "__main__":
    main()
