# pypto.program: bleft
import pypto.language as pl

@pl.program
class bleft:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 128], pl.FP32], col: pl.Tensor[[64, 1], pl.FP32], row: pl.Tensor[[1, 128], pl.FP32], out: pl.Out[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        for row_1, (out_iter,) in pl.range(0, 64, 32, init_values=(out,), auto_tile_bytes_per_element=32, auto_tile_vec_capacity=188416):
            x_tile: pl.Tile[[32, 128], pl.FP32] = pl.tile.load(x, [row_1, 0], [32, 128])
            col_tile: pl.Tile[[32, 1], pl.FP32] = pl.tile.load(col, [row_1, 0], [32, 1])
            row_tile: pl.Tile[[1, 128], pl.FP32] = pl.tile.load(row, [0, 0], [1, 128])
            col_tile_expanded: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand(x_tile, col_tile)
            c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.sub(col_tile_expanded, x_tile)
            row_tile_expanded: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand(c, row_tile)
            r: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.div(row_tile_expanded, c)
            m: pl.Tile[[32, 128], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_max(r, col_tile)
            o: pl.Tensor[[64, 128], pl.FP32] = pl.tile.store(m, [row_1, 0], out_iter)
            out_final: pl.Tensor[[64, 128], pl.FP32] = pl.yield_(o)
        return out_final
