"""Flash attention for one head: softmax(Q K^T / sqrt(d)) V over key blocks, with an online softmax.

    python examples/models/02_flash_attention.py

Per key block the cube core computes the scores and P @ V; a vector core
keeps the running row max `m`, row sum `l` and the unnormalized output `o`
(device tensors carried across iterations), rescaling them as the max
grows. The runtime orders the four tasks of each block through the tensors
they share.
"""

import math

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

Q, KV, D, BLOCK = 128, 512, 64, 128
SCALE = 1.0 / math.sqrt(D)


@pl.jit
def flash_attention(q: pl.Tensor[[Q, D], pl.FP16], k: pl.Tensor[[KV, D], pl.FP16], v: pl.Tensor[[KV, D], pl.FP16],
                    out: pl.Out[pl.Tensor[[Q, D], pl.FP32]]):
    m = pl.create_tensor([Q, 1], pl.FP32)
    l = pl.create_tensor([Q, 1], pl.FP32)
    o = pl.create_tensor([Q, D], pl.FP32)
    scores = pl.create_tensor([Q, BLOCK], pl.FP32)
    p = pl.create_tensor([Q, BLOCK], pl.FP16)
    pv = pl.create_tensor([Q, D], pl.FP32)
    alpha = pl.create_tensor([Q, 1], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="init"):
        pl.store(pl.tile.full([Q, 1], -1e30, dtype=pl.FP32), [0, 0], m)
        pl.store(pl.tile.full([Q, 1], 0.0, dtype=pl.FP32), [0, 0], l)
        pl.store(pl.tile.full([Q, D], 0.0, dtype=pl.FP32), [0, 0], o)
    for j in pl.range(0, KV, BLOCK):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores"):
            scores[:] = pl.matmul(q, k[j:j + BLOCK, :], b_trans=True, out_dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_softmax"):
            s = pl.mul(pl.load(scores, [0, 0], [Q, BLOCK]), SCALE)
            work = pl.create_tile([Q, BLOCK], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m_old = pl.load(m, [0, 0], [Q, 1])
            m_new = pl.maximum(m_old, pl.row_max(s, work))
            e = pl.exp(pl.row_expand_sub(s, m_new))
            a = pl.exp(pl.sub(m_old, m_new))
            pl.store(pl.add(pl.mul(pl.load(l, [0, 0], [Q, 1]), a), pl.row_sum(e, work)), [0, 0], l)
            pl.store(m_new, [0, 0], m)
            pl.store(a, [0, 0], alpha)
            pl.store(pl.cast(e, pl.FP16), [0, 0], p)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pv"):
            pv[:] = pl.matmul(p, v[j:j + BLOCK, :], out_dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rescale"):
            rescaled = pl.row_expand_mul(pl.load(o, [0, 0], [Q, D]), pl.load(alpha, [0, 0], [Q, 1]))
            pl.store(pl.add(rescaled, pl.load(pv, [0, 0], [Q, D])), [0, 0], o)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="normalize"):
        pl.store(pl.row_expand_div(pl.load(o, [0, 0], [Q, D]), pl.load(l, [0, 0], [Q, 1])), [0, 0], out)
    return out


def reference(q, k, v):
    """The same computation in torch, with P rounded to FP16 before P @ V as the kernel does."""
    s = (q.float() @ k.float().T) * SCALE
    m = torch.full((Q, 1), -1e30)
    l = torch.zeros(Q, 1)
    o = torch.zeros(Q, D)
    for j in range(0, KV, BLOCK):
        blk = s[:, j:j + BLOCK]
        m_new = torch.maximum(m, blk.max(dim=1, keepdim=True).values)
        e = torch.exp(blk - m_new)
        a = torch.exp(m - m_new)
        l = l * a + e.sum(dim=1, keepdim=True)
        o = o * a + e.half().float() @ v[j:j + BLOCK].float()
        m = m_new
    return o / l


def main() -> None:
    torch.manual_seed(0)
    q, k, v = (torch.randn(n, D).half() for n in (Q, KV, KV))
    out = torch.zeros(Q, D)
    flash_attention(q, k, v, out, config=RunConfig())
    torch.testing.assert_close(out, reference(q, k, v), rtol=1e-3, atol=1e-3)
    exact = torch.softmax((q.float() @ k.float().T) * SCALE, dim=-1) @ v.float()
    torch.testing.assert_close(out, exact, rtol=2e-2, atol=2e-2)
    print("OK")


if __name__ == "__main__":
    main()
