# pypto.program: vector_chain
import pypto.language as pl

@pl.program
class vector_chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.exp(t)
        m: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.mul(e, t)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(m, [0, 0], out)
        return r
