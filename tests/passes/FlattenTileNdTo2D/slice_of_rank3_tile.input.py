# pypto.program: slice3
import pypto.language as pl

@pl.program
class slice3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        t: pl.Tile[[2, 16, 64], pl.FP32] = pl.tile.load(x, [0, 0, 0], [2, 16, 64])
        half: pl.Tile[[2, 8, 64], pl.FP32] = pl.tile.slice(t, [2, 8, 64], [0, 8, 0])
        e: pl.Tile[[2, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(half)
        r: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(e, [0, 0, 0], out)
        return r
