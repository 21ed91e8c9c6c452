# pypto.program: casts
import pypto.language as pl

@pl.program
class casts:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP16], q: pl.Tensor[[16, 64], pl.INT8], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]], out_f: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.BF16], pl.Tensor[[16, 64], pl.FP32]]:
        t: pl.Tile[[16, 64], pl.FP16] = pl.tile.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16, mode=5)
        s: pl.Tile[[16, 64], pl.INT8] = pl.tile.load(q, [0, 0], [16, 64])
        f: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(s, target_type=pl.FP32)
        same: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(f, target_type=pl.FP32)
        h: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32)
        g: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(same, h)
        r: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(b, [0, 0], out)
        r2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(g, [0, 0], out_f)
        return r, r2
