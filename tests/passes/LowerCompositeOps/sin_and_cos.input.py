# pypto.program: trig
import pypto.language as pl

@pl.program
class trig:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out_s: pl.Out[pl.Tensor[[16, 64], pl.FP32]], out_c: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        a: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        s: pl.Tile[[16, 64], pl.FP32] = pl.tile.sin(a)
        c: pl.Tile[[16, 64], pl.FP32] = pl.tile.cos(a)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out_s)
        r2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], out_c)
        return r, r2
