# pypto.program: scratch
import pypto.language as pl

@pl.program
class scratch:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 32], pl.FP32], y: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 16], pl.FP32]], picked: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        a: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        b: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        t_tmp: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.create([32, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        t: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(a, 0, 1, t_tmp)
        mask: pl.Tile[[16, 32], pl.UINT8, pl.Mem.Vec, pl.TileView(valid_shape=[16, 4])] = pl.tile.cmp(a, b, cmp_type=2)
        s_tmp: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sel(mask, a, b, s_tmp)
        r: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        r2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(s, [0, 0], picked)
        return r, r2
