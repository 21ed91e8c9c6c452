# pypto.program: views
import pypto.language as pl

@pl.program
class views:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], flag: pl.Scalar[pl.BOOL], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        if flag:
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(e)
        else:
            n: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(t)
            v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(n)
        sq: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(v, [32, 32])
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(sq, [0, 0], out)
        return r
