# pypto.program: wide
import pypto.language as pl

@pl.program
class wide:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[128, 128], pl.FP32], y: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(65536, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(65536, memory_space=pl.Mem.Vec)
        base_vec_2: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(65536, memory_space=pl.Mem.Vec)
        a: pl.Tile[[128, 128], pl.FP32, pl.MemRef("mem_vec_0", 0, 65536, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [128, 128], target_memory=pl.Mem.Vec)
        b: pl.Tile[[128, 128], pl.FP32, pl.MemRef("mem_vec_1", 65536, 65536, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.load(y, [0, 0], [128, 128], target_memory=pl.Mem.Vec)
        s: pl.Tile[[128, 128], pl.FP32, pl.MemRef("mem_vec_2", 131072, 65536, pl.Mem.Vec, base=base_vec_2), pl.Mem.Vec] = pl.tile.add(a, b)
        r: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(s, [0, 0], out)
        return r
