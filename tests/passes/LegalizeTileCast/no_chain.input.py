# pypto.program: casts
import pypto.language as pl

@pl.program
class casts:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.UINT32]]) -> pl.Tensor[[16, 64], pl.UINT32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.UINT32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.UINT32)
        r: pl.Tensor[[16, 64], pl.UINT32] = pl.tile.store(u, [0, 0], out)
        return r
