# pypto.program: plain
import pypto.language as pl

@pl.program
class plain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return out_1
