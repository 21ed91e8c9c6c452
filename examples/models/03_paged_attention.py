"""Paged attention for one decode step: each sequence's keys and values live in blocks of a shared KV pool.

    python examples/models/03_paged_attention.py

The KV cache is a pool of POOL_BLOCKS physical blocks of BLOCK_TOKENS tokens
each. A sequence owns a row of the block table (INT32): entry j is the
physical block that holds its tokens j*BLOCK_TOKENS .. (j+1)*BLOCK_TOKENS-1.
The two sequences here share their first two blocks (a common prompt
prefix), which is what paging buys: the blocks are stored once.

Each sequence decodes one new token with HEADS query heads that share one KV
head (grouped-query attention), so its query is a HEADS x D block. It is
padded with zero rows to QUERY_ROWS = 16, the cube accumulator's row unit
(the platform's Acc M alignment in docs/platforms.md); the padded rows
attend uniformly and are dropped. Per logical block a sequence runs the
online softmax of 02_flash_attention.py: scores and P @ V on the cube core,
running max / sum / rescale on a vector core. The sequences are independent,
so a pl.parallel loop over them lets both simulated clusters work.

Where the block table is read: inside a kernel. A vector task loads the
sequence's row of the table into Vec, reads entry j with pl.read (a scalar
in the kernel) and uses it as the row offset of pl.load into the pool; the
block is staged into a per-sequence device tensor for the cube task. The
cube task cannot read the table itself: pl.read needs the tile in Vec and a
cube kernel has no way from Mat to Vec (the compiler says so), and
orchestration code cannot read a tensor element (the host backend refuses
tensor.read). A specialization constant would also work, but would compile
the program once per block table, which is wrong for a cache that changes
every step.
"""

import math

import torch

import pypto.language as pl
from pypto.runtime import RunConfig

NUM_SEQS, HEADS, D = 2, 4, 64  # HEADS query heads per sequence share one KV head
QUERY_ROWS = 16  # HEADS rows padded to the cube's 16-row granule
POOL_BLOCKS, BLOCK_TOKENS = 8, 32
SEQ_BLOCKS = 4  # logical blocks per sequence: a 128-token context
ROWS = NUM_SEQS * QUERY_ROWS
SCALE = 1.0 / math.sqrt(D)


@pl.jit
def paged_attention(query: pl.Tensor[[ROWS, D], pl.FP16],
                    k_pool: pl.Tensor[[POOL_BLOCKS * BLOCK_TOKENS, D], pl.FP16],
                    v_pool: pl.Tensor[[POOL_BLOCKS * BLOCK_TOKENS, D], pl.FP16],
                    block_table: pl.Tensor[[NUM_SEQS, SEQ_BLOCKS], pl.INT32],
                    out: pl.Out[pl.Tensor[[ROWS, D], pl.FP32]]):
    # One staging block per sequence, so the sequences' tasks touch disjoint rows and run side by side.
    k_blk = pl.create_tensor([NUM_SEQS * BLOCK_TOKENS, D], pl.FP16)
    v_blk = pl.create_tensor([NUM_SEQS * BLOCK_TOKENS, D], pl.FP16)
    m = pl.create_tensor([ROWS, 1], pl.FP32)
    l = pl.create_tensor([ROWS, 1], pl.FP32)
    o = pl.create_tensor([ROWS, D], pl.FP32)
    scores = pl.create_tensor([ROWS, BLOCK_TOKENS], pl.FP32)
    p = pl.create_tensor([ROWS, BLOCK_TOKENS], pl.FP16)
    pv = pl.create_tensor([ROWS, D], pl.FP32)
    alpha = pl.create_tensor([ROWS, 1], pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="init"):
        pl.store(pl.tile.full([ROWS, 1], -1e30, dtype=pl.FP32), [0, 0], m)
        pl.store(pl.tile.full([ROWS, 1], 0.0, dtype=pl.FP32), [0, 0], l)
        pl.store(pl.tile.full([ROWS, D], 0.0, dtype=pl.FP32), [0, 0], o)
    for seq in pl.parallel(0, NUM_SEQS):
        q_row = seq * QUERY_ROWS  # this sequence's rows of the query and of the softmax state
        kv_row = seq * BLOCK_TOKENS  # its staging block
        for j in pl.range(0, SEQ_BLOCKS):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather_block"):
                table_row = pl.load(block_table, [seq, 0], [1, SEQ_BLOCKS])
                pool_row = pl.read(table_row, [0, j]) * BLOCK_TOKENS
                pl.store(pl.load(k_pool, [pool_row, 0], [BLOCK_TOKENS, D]), [kv_row, 0], k_blk)
                pl.store(pl.load(v_pool, [pool_row, 0], [BLOCK_TOKENS, D]), [kv_row, 0], v_blk)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="scores"):
                scores[q_row:q_row + QUERY_ROWS, :] = pl.matmul(query[q_row:q_row + QUERY_ROWS, :],
                                                                k_blk[kv_row:kv_row + BLOCK_TOKENS, :],
                                                                b_trans=True, out_dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="online_softmax"):
                s = pl.mul(pl.load(scores, [q_row, 0], [QUERY_ROWS, BLOCK_TOKENS]), SCALE)
                work = pl.create_tile([QUERY_ROWS, BLOCK_TOKENS], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                m_old = pl.load(m, [q_row, 0], [QUERY_ROWS, 1])
                m_new = pl.maximum(m_old, pl.row_max(s, work))
                e = pl.exp(pl.row_expand_sub(s, m_new))
                a = pl.exp(pl.sub(m_old, m_new))
                l_new = pl.add(pl.mul(pl.load(l, [q_row, 0], [QUERY_ROWS, 1]), a), pl.row_sum(e, work))
                pl.store(l_new, [q_row, 0], l)
                pl.store(m_new, [q_row, 0], m)
                pl.store(a, [q_row, 0], alpha)
                pl.store(pl.cast(e, pl.FP16), [q_row, 0], p)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="pv"):
                pv[q_row:q_row + QUERY_ROWS, :] = pl.matmul(p[q_row:q_row + QUERY_ROWS, :],
                                                            v_blk[kv_row:kv_row + BLOCK_TOKENS, :], out_dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="rescale"):
                rescaled = pl.row_expand_mul(pl.load(o, [q_row, 0], [QUERY_ROWS, D]),
                                             pl.load(alpha, [q_row, 0], [QUERY_ROWS, 1]))
                pl.store(pl.add(rescaled, pl.load(pv, [q_row, 0], [QUERY_ROWS, D])), [q_row, 0], o)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="normalize"):
        pl.store(pl.row_expand_div(pl.load(o, [0, 0], [ROWS, D]), pl.load(l, [0, 0], [ROWS, 1])), [0, 0], out)
    return out


def gather_sequence(pool, table_row):
    """A sequence's keys (or values) in token order: its blocks picked out of the pool."""
    return pool.view(POOL_BLOCKS, BLOCK_TOKENS, D)[table_row.long()].reshape(-1, D)


def reference(query, k_pool, v_pool, block_table):
    """Exact attention per sequence over its gathered blocks, in FP32: NUM_SEQS x HEADS x D."""
    out = torch.empty(NUM_SEQS, HEADS, D)
    for seq in range(NUM_SEQS):
        k, v = gather_sequence(k_pool, block_table[seq]).float(), gather_sequence(v_pool, block_table[seq]).float()
        out[seq] = torch.softmax(query[seq].float() @ k.T * SCALE, dim=-1) @ v
    return out


def main() -> None:
    torch.manual_seed(0)
    query = torch.randn(NUM_SEQS, HEADS, D).half()
    padded_query = torch.zeros(NUM_SEQS, QUERY_ROWS, D, dtype=torch.float16)
    padded_query[:, :HEADS] = query
    k_pool = torch.randn(POOL_BLOCKS * BLOCK_TOKENS, D).half()
    v_pool = torch.randn(POOL_BLOCKS * BLOCK_TOKENS, D).half()
    out = torch.zeros(NUM_SEQS, QUERY_ROWS, D)
    # Blocks 5 and 2 hold the shared prefix; blocks 1 and 4 are free. The second table is another
    # step's cache layout: the same compiled program reads other blocks, since the table is data.
    for table in ([[5, 2, 7, 0], [5, 2, 3, 6]], [[1, 4, 6, 3], [0, 7, 5, 2]]):
        block_table = torch.tensor(table, dtype=torch.int32)
        paged_attention(padded_query.view(ROWS, D), k_pool, v_pool, block_table, out.view(ROWS, D),
                        config=RunConfig())
        # P is rounded to FP16 before P @ V on the cube; the error stays well below 1e-3.
        torch.testing.assert_close(out[:, :HEADS], reference(query, k_pool, v_pool, block_table),
                                   rtol=1e-3, atol=1e-3)
    print("OK")


if __name__ == "__main__":
    main()
