# pypto.program: DynamicChain
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")

@pl.program
class DynamicChain:
    @pl.function(type=pl.FunctionType.InCore)
    def add(self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Tensor[[M, N], pl.FP32], ret0_out: pl.Out[pl.Tensor[[M, N], pl.FP32]]) -> pl.Tensor[[M, N], pl.FP32]:
        for row, (ret0_out_row_iter,) in pl.range(0, M, 64, init_values=(ret0_out,), auto_tile_bytes_per_element=12, auto_tile_vec_capacity=188416):
            for col, (ret0_out_iter,) in pl.range(0, N, 128, init_values=(ret0_out_row_iter,), auto_tile_bytes_per_element=12, auto_tile_vec_capacity=188416):
                a_tile: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[pl.min(64, M - row), pl.min(128, N - col)])] = pl.tile.load(a, [row, col], [64, 128], [pl.min(64, M - row), pl.min(128, N - col)])
                b_tile: pl.Tile[[64, 128], pl.FP32, pl.TileView(valid_shape=[pl.min(64, M - row), pl.min(128, N - col)])] = pl.tile.load(b, [row, col], [64, 128], [pl.min(64, M - row), pl.min(128, N - col)])
                c: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(64, M - row), pl.min(128, N - col)])] = pl.tile.add(a_tile, b_tile)
                ret0_block: pl.Tensor[[M, N], pl.FP32] = pl.tile.store(c, [row, col], ret0_out_iter)
                ret0_out_row: pl.Tensor[[M, N], pl.FP32] = pl.yield_(ret0_block)
            ret0_out_final: pl.Tensor[[M, N], pl.FP32] = pl.yield_(ret0_out_row)
        return ret0_out_final
