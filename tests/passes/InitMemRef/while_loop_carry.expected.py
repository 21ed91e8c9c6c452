# pypto.program: wl
import pypto.language as pl

@pl.program
class wl:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        base_vec_0: pl.Ptr[pl.Mem.Vec] = pl.tile.alloc(4096, memory_space=pl.Mem.Vec)
        init: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        for (acc, i) in pl.while_(init_values=(init, 0)):
            pl.cond(i < n)
            nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef("mem_vec_0", 0, 4096, pl.Mem.Vec, base=base_vec_0), pl.Mem.Vec] = pl.tile.exp(acc)
            j: pl.Scalar[pl.INDEX] = i + 1
            res, cnt = pl.yield_(nxt, j)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(res, [0, 0], out)
        return r
