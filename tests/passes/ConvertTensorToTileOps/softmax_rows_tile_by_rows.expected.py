# pypto.program: Softmax
import pypto.language as pl

@pl.program
class Softmax:
    @pl.function(type=pl.FunctionType.InCore)
    def softmax(self, x: pl.Tensor[[256, 1024], pl.FP32], ret0_out: pl.Out[pl.Tensor[[256, 1024], pl.FP32]]) -> pl.Tensor[[256, 1024], pl.FP32]:
        for row, (ret0_out_iter,) in pl.range(0, 256, 4, init_values=(ret0_out,), auto_tile_bytes_per_element=32, auto_tile_vec_capacity=188416):
            x_tile: pl.Tile[[4, 1024], pl.FP32] = pl.tile.load(x, [row, 0], [4, 1024])
            tmp: pl.Tile[[4, 1024], pl.FP32] = pl.tile.create([4, 1024], dtype=pl.FP32)
            m: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(x_tile, tmp)
            d: pl.Tile[[4, 1024], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(x_tile, m)
            e: pl.Tile[[4, 1024], pl.FP32, pl.Mem.Vec] = pl.tile.exp(d)
            tmp_1: pl.Tile[[4, 1024], pl.FP32] = pl.tile.create([4, 1024], dtype=pl.FP32)
            s: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(e, tmp_1)
            p: pl.Tile[[4, 1024], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_div(e, s)
            ret0_block: pl.Tensor[[256, 1024], pl.FP32] = pl.tile.store(p, [row, 0], ret0_out_iter)
            ret0_out_final: pl.Tensor[[256, 1024], pl.FP32] = pl.yield_(ret0_block)
        return ret0_out_final
