# pypto.program: branch
import pypto.language as pl

@pl.program
class branch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INT64], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        if n > pl.const(0, pl.INT64):
            u: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            v: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.yield_(u)
        else:
            w: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.muls(t, 2.0)
            v: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_1", 4096, 4096, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.yield_(w)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(v, [0, 0], out)
        return r
