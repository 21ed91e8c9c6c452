# pypto.program: nospace
import pypto.language as pl

@pl.program
class nospace:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return r
