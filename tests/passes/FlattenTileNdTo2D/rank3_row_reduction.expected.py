# pypto.program: rank3
import pypto.language as pl

@pl.program
class rank3:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 8, 64], pl.FP32], out: pl.Out[pl.Tensor[[4, 8, 1], pl.FP32]]) -> pl.Tensor[[4, 8, 1], pl.FP32]:
        t_nd: pl.Tile[[4, 8, 64], pl.FP32] = pl.tile.load(x, [0, 0, 0], [4, 8, 64])
        t: pl.Tile[[32, 64], pl.FP32] = pl.tile.reshape(t_nd, [32, 64])
        e: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        tmp: pl.Tile[[32, 64], pl.FP32] = pl.tile.create([32, 64], dtype=pl.FP32)
        s: pl.Tile[[32, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e, tmp)
        s_nd: pl.Tile[[4, 8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(s, [4, 8, 1])
        r: pl.Tensor[[4, 8, 1], pl.FP32] = pl.tile.store(s_nd, [0, 0, 0], out)
        return r
