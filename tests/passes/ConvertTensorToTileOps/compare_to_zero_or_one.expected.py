# pypto.program: compare
import pypto.language as pl

@pl.program
class compare:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32], ret0_out: pl.Out[pl.Tensor[[32, 64], pl.FP32]], ret1_out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> tuple[pl.Tensor[[32, 64], pl.FP32], pl.Tensor[[32, 64], pl.FP32]]:
        x_tile: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(x, [0, 0], [32, 64])
        y_tile: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(y, [0, 0], [32, 64])
        mask: pl.Tile[[32, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[32, 8])] = pl.tile.cmp(x_tile, y_tile, cmp_type=2)
        ones: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 64], 1.0, dtype=pl.FP32)
        zeros: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 64], 0.0, dtype=pl.FP32)
        lt: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(mask, ones, zeros)
        mask_1: pl.Tile[[32, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[32, 8])] = pl.tile.cmps(x_tile, 0.0, cmp_type=4)
        ones_1: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 64], 1.0, dtype=pl.FP32)
        zeros_1: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 64], 0.0, dtype=pl.FP32)
        pos: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.sel(mask_1, ones_1, zeros_1)
        ret0: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(lt, [0, 0], ret0_out)
        ret1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(pos, [0, 0], ret1_out)
        return ret0, ret1
