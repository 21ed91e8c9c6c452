# pypto.program: casts
import pypto.language as pl

@pl.program
class casts:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP8E4M3FN]]) -> pl.Tensor[[16, 64], pl.FP8E4M3FN]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        e: pl.Tile[[16, 64], pl.FP8E4M3FN, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP8E4M3FN)
        r: pl.Tensor[[16, 64], pl.FP8E4M3FN] = pl.tile.store(e, [0, 0], out)
        return r
