"""A device-resident KV cache shared by two programs on one worker.

    python examples/runtime/02_resident_kv_cache.py

`append` writes one step's keys into a slot of the cache (the slot is a
scalar the program is specialized on), `attend_scores` reads the whole cache.
The cache never leaves the device between the calls; it is copied back
once at the end to check it.
"""

import torch

import pypto.language as pl
from pypto.runtime import ChipWorker, RunConfig

SLOTS, WIDTH = 8, 64


@pl.jit
def append(k_new: pl.Tensor[[16, WIDTH], pl.FP32], slot: pl.Scalar[pl.INDEX],
           cache: pl.InOut[pl.Tensor[[SLOTS * 16, WIDTH], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(k_new, [0, 0], [16, WIDTH]), [slot * 16, 0], cache)
    return cache


@pl.jit
def attend_scores(q: pl.Tensor[[1, WIDTH], pl.FP32], cache: pl.Tensor[[SLOTS * 16, WIDTH], pl.FP32],
                  scores: pl.Out[pl.Tensor[[SLOTS * 16, 1], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        k = pl.load(cache, [0, 0], [SLOTS * 16, WIDTH])
        work = pl.create_tile([SLOTS * 16, WIDTH], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        prod = pl.col_expand_mul(k, pl.load(q, [0, 0], [1, WIDTH]))
        s: pl.Tile[[SLOTS * 16, 1], pl.FP32] = pl.row_sum(prod, work)
        pl.store(s, [0, 0], scores)
    return scores


def main() -> None:
    torch.manual_seed(0)
    config = RunConfig(platform="a2a3sim")
    keys = [torch.randn(16, WIDTH) for _ in range(SLOTS)]
    q, scores = torch.randn(1, WIDTH), torch.zeros(SLOTS * 16, 1)
    with ChipWorker(config=config) as worker:
        cache = worker.alloc_tensor((SLOTS * 16, WIDTH), torch.float32)
        for slot, k in enumerate(keys):
            worker.run(append.compile(k, slot, torch.zeros(SLOTS * 16, WIDTH), config=config), k, cache)
        worker.run(attend_scores.compile(q, torch.zeros(SLOTS * 16, WIDTH), scores, config=config), q, cache, scores)
        host_cache = worker.copy_from(torch.zeros(SLOTS * 16, WIDTH), cache)
    expected_cache = torch.cat(keys)
    torch.testing.assert_close(host_cache, expected_cache, rtol=0, atol=0)
    torch.testing.assert_close(scores, expected_cache @ q.T, rtol=1e-5, atol=1e-5)
    print("OK")


if __name__ == "__main__":
    main()
