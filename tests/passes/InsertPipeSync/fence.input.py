# pypto.program: fence
import pypto.language as pl

@pl.program
class fence:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], out)
        pl.system.fence()
        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        r2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(u, [0, 0], r)
        return r2
