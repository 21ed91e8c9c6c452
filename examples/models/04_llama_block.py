"""A llama-style decoder block: RMSNorm, causal self-attention, RMSNorm, SwiGLU FFN, with residuals.

    python examples/models/04_llama_block.py

    h   = x + Attention(RMSNorm(x)) @ W_o
    out = h + (silu(RMSNorm(h) @ W_gate) * (RMSNorm(h) @ W_up)) @ W_down

TOKENS tokens, HIDDEN = HEADS * HEAD_DIM, FFN hidden units. Weights are
FP16; every matmul accumulates in FP32 on the cube core. The residual stream
(x, h, out) stays FP32; what feeds the cube is rounded to FP16 (the normed
activations, Q/K/V, the softmax probabilities, the attention output, the
gated FFN activations).

One region is one kernel, and a kernel is either cube (matmul) or vector
work, so the block is a chain of tasks joined by device tensors: RMSNorm
(vec), Q/K/V projections (cube: three matmuls in one kernel, stored straight
to FP16), per head scores (cube) / masked softmax (vec) / P @ V (cube),
output projection (cube), residual add (vec), RMSNorm (vec), gate/up
projections (cube), SwiGLU (vec), down projection (cube), residual add
(vec). RMSNorm and the residual add are @pl.jit.incore functions called
twice: one kernel each, compiled once (each kernel costs about 2 s of C++
compile on a cold object cache). The heads are independent, so a
pl.parallel loop runs them on both simulated clusters.

The causal mask is an additive TOKENS x TOKENS tensor (0 on and below the
diagonal, -inf above) built in torch and passed in: the language has
comparisons (pl.tile.cmp / cmps) and pl.tile.sel, but no op that makes a
tile of row or column indices to compare, so the mask would have to come in
as a tensor anyway.
"""

import math

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

TOKENS, HEADS, HEAD_DIM, FFN = 64, 2, 64, 256
HIDDEN = HEADS * HEAD_DIM
SCALE = 1.0 / math.sqrt(HEAD_DIM)
EPS = 1e-6
NORM_ROWS = 32  # rows per step of the norm loops: a few 32x128 FP32 tiles fit Vec easily
GATE_ROWS = 16  # rows per step of the SwiGLU loop (16x256 FP32 tiles)


# Kernels used twice: each compiles once and runs as two tasks.
@pl.jit.incore
def rms_norm(x: pl.Tensor[[TOKENS, HIDDEN], pl.FP32], weight: pl.Tensor[[1, HIDDEN], pl.FP32],
             out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP16]]):
    """x / rms(x) * weight per row, rounded to FP16 for the projections that follow."""
    w = pl.load(weight, [0, 0], [1, HIDDEN])
    for r in pl.range(0, TOKENS, NORM_ROWS):
        t = pl.load(x, [r, 0], [NORM_ROWS, HIDDEN])
        work = pl.create_tile([NORM_ROWS, HIDDEN], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        rms = pl.sqrt(pl.add(pl.mul(pl.row_sum(pl.mul(t, t), work), 1.0 / HIDDEN), EPS))
        out = pl.store(pl.cast(pl.col_expand_mul(pl.row_expand_div(t, rms), w), pl.FP16), [r, 0], out)
    return out


@pl.jit.incore
def add(a: pl.Tensor[[TOKENS, HIDDEN], pl.FP32], b: pl.Tensor[[TOKENS, HIDDEN], pl.FP32],
        out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP32]]):
    """A residual connection."""
    out = pl.store(pl.add(pl.load(a, [0, 0], [TOKENS, HIDDEN]), pl.load(b, [0, 0], [TOKENS, HIDDEN])), [0, 0], out)
    return out


@pl.jit
def llama_block(x: pl.Tensor[[TOKENS, HIDDEN], pl.FP32], mask: pl.Tensor[[TOKENS, TOKENS], pl.FP32],
                norm1_w: pl.Tensor[[1, HIDDEN], pl.FP32], norm2_w: pl.Tensor[[1, HIDDEN], pl.FP32],
                w_q: pl.Tensor[[HIDDEN, HIDDEN], pl.FP16], w_k: pl.Tensor[[HIDDEN, HIDDEN], pl.FP16],
                w_v: pl.Tensor[[HIDDEN, HIDDEN], pl.FP16], w_o: pl.Tensor[[HIDDEN, HIDDEN], pl.FP16],
                w_gate: pl.Tensor[[HIDDEN, FFN], pl.FP16], w_up: pl.Tensor[[HIDDEN, FFN], pl.FP16],
                w_down: pl.Tensor[[FFN, HIDDEN], pl.FP16], out: pl.Out[pl.Tensor[[TOKENS, HIDDEN], pl.FP32]]):
    normed = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    q = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    k = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    v = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    # Per-head scores and probabilities side by side, so the heads' tasks write disjoint columns.
    scores = pl.create_tensor([TOKENS, HEADS * TOKENS], pl.FP32)
    probs = pl.create_tensor([TOKENS, HEADS * TOKENS], pl.FP16)
    attn = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    attn_proj = pl.create_tensor([TOKENS, HIDDEN], pl.FP32)
    h = pl.create_tensor([TOKENS, HIDDEN], pl.FP32)
    normed2 = pl.create_tensor([TOKENS, HIDDEN], pl.FP16)
    gate = pl.create_tensor([TOKENS, FFN], pl.FP32)
    up = pl.create_tensor([TOKENS, FFN], pl.FP32)
    gated = pl.create_tensor([TOKENS, FFN], pl.FP16)
    ffn_out = pl.create_tensor([TOKENS, HIDDEN], pl.FP32)

    normed = rms_norm(x, norm1_w, normed)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="qkv_proj"):
        # FP32 accumulation, rounded to FP16 on the way out: the next matmuls take FP16 operands.
        q[:] = pl.matmul(normed, w_q, out_dtype=pl.FP16)
        k[:] = pl.matmul(normed, w_k, out_dtype=pl.FP16)
        v[:] = pl.matmul(normed, w_v, out_dtype=pl.FP16)
    for head in pl.parallel(0, HEADS):
        col = head * HEAD_DIM  # this head's columns of q, k, v and attn
        s_col = head * TOKENS  # and of scores, probs
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores"):
            scores[:, s_col:s_col + TOKENS] = pl.matmul(q[:, col:col + HEAD_DIM], k[:, col:col + HEAD_DIM],
                                                        b_trans=True, out_dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="causal_softmax"):
            s = pl.add(pl.mul(pl.load(scores, [0, s_col], [TOKENS, TOKENS]), SCALE),
                       pl.load(mask, [0, 0], [TOKENS, TOKENS]))
            work = pl.create_tile([TOKENS, TOKENS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            # Every row keeps its diagonal, so its max is finite and exp(-inf - max) is 0.
            e = pl.exp(pl.row_expand_sub(s, pl.row_max(s, work)))
            pl.store(pl.cast(pl.row_expand_div(e, pl.row_sum(e, work)), pl.FP16), [0, s_col], probs)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="pv"):
            attn[:, col:col + HEAD_DIM] = pl.matmul(probs[:, s_col:s_col + TOKENS], v[:, col:col + HEAD_DIM],
                                                    out_dtype=pl.FP16)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="o_proj"):
        attn_proj[:] = pl.matmul(attn, w_o, out_dtype=pl.FP32)
    h = add(x, attn_proj, h)
    normed2 = rms_norm(h, norm2_w, normed2)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gate_up_proj"):
        gate[:] = pl.matmul(normed2, w_gate, out_dtype=pl.FP32)
        up[:] = pl.matmul(normed2, w_up, out_dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="swiglu"):
        for r in pl.range(0, TOKENS, GATE_ROWS):
            g = pl.load(gate, [r, 0], [GATE_ROWS, FFN])
            silu = pl.mul(g, pl.recip(pl.add(pl.exp(pl.neg(g)), 1.0)))
            pl.store(pl.cast(pl.mul(silu, pl.load(up, [r, 0], [GATE_ROWS, FFN])), pl.FP16), [r, 0], gated)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="down_proj"):
        ffn_out[:] = pl.matmul(gated, w_down, out_dtype=pl.FP32)
    out = add(h, ffn_out, out)
    return out


def torch_rms_norm(t, weight):
    return t / torch.sqrt((t * t).mean(dim=-1, keepdim=True) + EPS) * weight


def reference(x, mask, norm1_w, norm2_w, w_q, w_k, w_v, w_o, w_gate, w_up, w_down, fp16_steps: bool):
    """The block in FP32 torch; with fp16_steps, rounding to FP16 where the kernel does."""
    def r16(t):
        return t.half().float() if fp16_steps else t

    def heads(t):
        return t.view(TOKENS, HEADS, HEAD_DIM).transpose(0, 1)

    normed = r16(torch_rms_norm(x, norm1_w))
    q, k, v = (heads(r16(normed @ w.float())) for w in (w_q, w_k, w_v))
    if fp16_steps:
        probs = r16(torch.softmax(q @ k.transpose(1, 2) * SCALE + mask, dim=-1))
        attn = r16(probs @ v)
    else:
        attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    h = x + r16(attn.transpose(0, 1).reshape(TOKENS, HIDDEN)) @ w_o.float()
    normed2 = r16(torch_rms_norm(h, norm2_w))
    gated = r16(torch.nn.functional.silu(normed2 @ w_gate.float()) * (normed2 @ w_up.float()))
    return h + gated @ w_down.float()


def main() -> None:
    torch.manual_seed(0)
    x = torch.randn(TOKENS, HIDDEN)
    mask = torch.full((TOKENS, TOKENS), float("-inf")).triu(1)
    norm1_w, norm2_w = 1.0 + 0.1 * torch.randn(1, HIDDEN), 1.0 + 0.1 * torch.randn(1, HIDDEN)

    def weight(rows, cols):
        return (torch.randn(rows, cols) / rows**0.5).half()

    w_q, w_k, w_v, w_o = (weight(HIDDEN, HIDDEN) for _ in range(4))
    w_gate, w_up, w_down = weight(HIDDEN, FFN), weight(HIDDEN, FFN), weight(FFN, HIDDEN)
    args = (x, mask, norm1_w, norm2_w, w_q, w_k, w_v, w_o, w_gate, w_up, w_down)
    out = torch.zeros(TOKENS, HIDDEN)
    llama_block(*args, out, config=RunConfig())
    # Against torch with the same FP16 roundings: only summation order differs (max error here ~3e-4,
    # an FP16 ulp of an intermediate that rounds the other way).
    torch.testing.assert_close(out, reference(*args, fp16_steps=True), rtol=1e-3, atol=1e-3)
    # Against the block in FP32 throughout (torch's causal SDPA): the FP16 roundings add up (~1.5e-3 here).
    torch.testing.assert_close(out, reference(*args, fp16_steps=False), rtol=1e-2, atol=1e-2)
    print("OK")


if __name__ == "__main__":
    main()
