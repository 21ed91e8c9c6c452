# pypto.program: chain
import pypto.language as pl

@pl.program
class chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_3: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        a: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 0, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.exp(a)
        c: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_2", 0, 4096, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.recip(b)
        d: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_3", 0, 4096, pl.Mem.Vec, base=base_vec_3), pl.Mem.Vec] = pl.tile.adds(c, 1.0)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(d, [0, 0], out)
        return r
