# pypto.program: large_a5
import pypto.language as pl

@pl.program
class large_a5:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2048, 2048], pl.FP32], b: pl.Tensor[[2048, 2048], pl.FP32], out: pl.Out[pl.Tensor[[2048, 2048], pl.FP32]]) -> pl.Tensor[[2048, 2048], pl.FP32]:
        for row, (out_iter,) in pl.range(0, 2048, 8, init_values=(out,), auto_tile_bytes_per_element=12, auto_tile_vec_capacity=245760):
            a_tile: pl.Tile[[8, 2048], pl.FP32] = pl.tile.load(a, [row, 0], [8, 2048])
            b_tile: pl.Tile[[8, 2048], pl.FP32] = pl.tile.load(b, [row, 0], [8, 2048])
            s: pl.Tile[[8, 2048], pl.FP32, pl.Mem.Vec] = pl.tile.add(a_tile, b_tile)
            o: pl.Tensor[[2048, 2048], pl.FP32] = pl.tile.store(s, [row, 0], out_iter)
            out_final: pl.Tensor[[2048, 2048], pl.FP32] = pl.yield_(o)
        return out_final
