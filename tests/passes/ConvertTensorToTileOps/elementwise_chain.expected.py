# pypto.program: chain
import pypto.language as pl

@pl.program
class chain:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 128], pl.FP32], b: pl.Tensor[[64, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        a_tile: pl.Tile[[64, 128], pl.FP32] = pl.tile.load(a, [0, 0], [64, 128])
        b_tile: pl.Tile[[64, 128], pl.FP32] = pl.tile.load(b, [0, 0], [64, 128])
        s: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.add(a_tile, b_tile)
        e: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        m: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.mul(e, a_tile)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(m, [0, 0], out)
        return o
