# pypto.program: scale_rows
import pypto.language as pl

@pl.program
class scale_rows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1024, 256], pl.FP32], w: pl.Tensor[[16, 256], pl.FP32], out: pl.Out[pl.Tensor[[1024, 256], pl.FP32]]) -> pl.Tensor[[1024, 256], pl.FP32]:
        s: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(w, [0, 0], [16, 256], target_memory=pl.Mem.Vec)
        for i, (acc,) in pl.range(0, 64, 1, init_values=(out,)):
            t: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i * 16, 0], [16, 256], target_memory=pl.Mem.Vec)
            p: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t, s)
            o: pl.Tensor[[1024, 256], pl.FP32] = pl.tile.store(p, [i * 16, 0], acc)
            r: pl.Tensor[[1024, 256], pl.FP32] = pl.yield_(o)
        return r
