# pypto.program: scalar_access
import pypto.language as pl

@pl.program
class scalar_access:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        first: pl.Scalar[pl.FP32] = pl.tile.read(t, [0, 0])
        u: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.write(t, [0, 1], first)
        v: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.adds(u, first)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], out)
        return r
