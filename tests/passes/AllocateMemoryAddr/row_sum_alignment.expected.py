# pypto.program: aligned
import pypto.language as pl

@pl.program
class aligned:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[10, 64], pl.FP32], out: pl.Out[pl.Tensor[[10, 1], pl.FP16]]) -> pl.Tensor[[10, 1], pl.FP16]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(2560, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(2560, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(40, memory_space=pl.Mem.Vec)
        base_vec_3: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(20, memory_space=pl.Mem.Vec)
        a: pl.Tile[[10, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 2560, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [10, 64], target_memory=pl.Mem.Vec)
        tmp: pl.Tile[[10, 64], pl.FP32, pl.MemRef("mem_vec_1", 2560, 2560, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.create([10, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[10, 1], pl.FP32, pl.MemRef("mem_vec_2", 5120, 40, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.row_sum(a, tmp)
        h: pl.Tile[[10, 1], pl.FP16, pl.MemRef("mem_vec_3", 5184, 20, pl.Mem.Vec, base=base_vec_3), pl.Mem.Vec] = pl.tile.cast(s, target_type=pl.FP16)
        r: pl.Tensor[[10, 1], pl.FP16] = pl.tile.store(h, [0, 0], out)
        return r
