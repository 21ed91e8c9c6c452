# pypto.program: sizes
import pypto.language as pl

@pl.program
class sizes:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]) -> pl.Tensor[[32, 1], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(8192, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(8192, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(128, memory_space=pl.Mem.Vec)
        a: pl.Tile[[32, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 8192, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[32, 64], pl.FP32, pl.MemRef("mem_vec_1", 0, 8192, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[32, 1], pl.FP32, pl.MemRef("mem_vec_2", 0, 128, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.row_sum(a, tmp)
        h: pl.Tile[[32, 1], pl.FP32, pl.MemRef("mem_vec_0", 0, 8192, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.muls(s, 0.5)
        e: pl.Tile[[32, 1], pl.FP32, pl.MemRef("mem_vec_0", 0, 8192, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.exp(h)
        r: pl.Tensor[[32, 1], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return r
