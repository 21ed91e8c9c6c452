# pypto.program: rank3
import pypto.language as pl

@pl.program
class rank3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 8, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 8, 1], pl.FP32]]) -> pl.Tensor[[4, 8, 1], pl.FP32]:
        t: pl.Tile[[4, 8, 64], pl.FP32] = pl.tile.load(x, [0, 0, 0], [4, 8, 64])
        e: pl.Tile[[4, 8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        tmp: pl.Tile[[4, 8, 64], pl.FP32] = pl.tile.create([4, 8, 64], dtype=pl.FP32)
        s: pl.Tile[[4, 8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e, tmp)
        r: pl.Tensor[[4, 8, 1], pl.FP32] = pl.tile.store(s, [0, 0, 0], out)
        return r
