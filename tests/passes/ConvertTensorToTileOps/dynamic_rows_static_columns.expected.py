# pypto.program: DynamicRows
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class DynamicRows:
    @pl.function(type=pl.FunctionType.InCore)
    def scale(self, x: pl.Tensor[[M, 256], pl.FP16], out: pl.Out[pl.Tensor[[M, 256], pl.FP16]]) -> pl.Tensor[[M, 256], pl.FP16]:
        for row, (out_iter,) in pl.range(0, M, 128, init_values=(out,), auto_tile_bytes_per_element=4, auto_tile_vec_capacity=188416):
            x_tile: pl.Tile[[128, 256], pl.FP16, pl.TileView(valid_shape=[pl.min(128, M - row), 256])] = pl.tile.load(x, [row, 0], [128, 256], [pl.min(128, M - row), 256])
            y: pl.Tile[[128, 256], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(128, M - row), 256])] = pl.tile.muls(x_tile, 2.0)
            o: pl.Tensor[[M, 256], pl.FP16] = pl.tile.store(y, [row, 0], out_iter)
            out_final: pl.Tensor[[M, 256], pl.FP16] = pl.yield_(o)
        return out_final
