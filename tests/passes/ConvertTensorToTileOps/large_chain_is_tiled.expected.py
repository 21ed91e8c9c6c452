# pypto.program: large
import pypto.language as pl

@pl.program
class large:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 2048], pl.FP32], b: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> pl.Tensor[[2048, 2048], pl.FP32]:
        for row, (out_iter,) in pl.range(0, 2048, 4, init_values=(out,), auto_tile_bytes_per_element=16, auto_tile_vec_capacity=188416):
            a_tile: pl.Tile[[4, 2048], pl.FP32] = pl.tile.load(a, [row, 0], [4, 2048])
            b_tile: pl.Tile[[4, 2048], pl.FP32] = pl.tile.load(b, [row, 0], [4, 2048])
            s: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.add(a_tile, b_tile)
            e: pl.Tile[[4, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
            o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tile.store(e, [row, 0], out_iter)
            out_final: pl.Tensor[[2048, 2048], pl.FP32] = pl.yield_(o)
        return out_final
