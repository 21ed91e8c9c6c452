# pypto.program: padded
import pypto.language as pl

@pl.program
class padded:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT8], out: pl.Out[pl.Tensor[[16, 16], pl.INT8]], col: pl.Out[pl.Tensor[[16, 1], pl.FP16]]) -> tuple[pl.Tensor[[16, 16], pl.INT8], pl.Tensor[[16, 1], pl.FP16]]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(512, memory_space=pl.Mem.Vec)
        base_vec_1: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(32, memory_space=pl.Mem.Vec)
        ta: pl.Tile[[16, 16], pl.INT8, pl.MemRef("mem_vec_0", 0, 512, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        tail: pl.Tile[[8, 16], pl.INT8, pl.MemRef("mem_vec_0_view0", 256, 240, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.slice(ta, [8, 16], [8, 0])
        c: pl.Tile[[16, 1], pl.FP16, pl.MemRef("mem_vec_1", 0, 32, pl.Mem.Vec, base=base_vec_1), pl.Mem.Vec] = pl.tile.full([16, 1], 1.0, dtype=pl.FP16)
        r: pl.Tensor[[16, 16], pl.INT8] = pl.tile.store(tail, [8, 0], out)
        r2: pl.Tensor[[16, 1], pl.FP16] = pl.tile.store(c, [0, 0], col)
        return r, r2
