# pypto.program: tparam
import pypto.language as pl

@pl.program
class tparam:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, t: pl.Tile[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        e: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return r
