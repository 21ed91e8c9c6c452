# pypto.program: bcast
import pypto.language as pl

@pl.program
class bcast:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], col: pl.Tensor[[64, 1], pl.FP32], row: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        x_tile: pl.Tile[[64, 128], pl.FP32] = pl.tile.load(x, [0, 0], [64, 128])
        col_tile: pl.Tile[[64, 1], pl.FP32] = pl.tile.load(col, [0, 0], [64, 1])
        row_tile: pl.Tile[[1, 128], pl.FP32] = pl.tile.load(row, [0, 0], [1, 128])
        c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(x_tile, col_tile)
        r: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(c, row_tile)
        o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return o
