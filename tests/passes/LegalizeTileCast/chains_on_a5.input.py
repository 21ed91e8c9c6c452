# pypto.program: casts
import pypto.language as pl

@pl.program
class casts:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP16], n: pl.Tensor[[16, 64], pl.INT32], out: pl.Out[pl.Tensor[[16, 64], pl.BF16]], out_h: pl.Out[pl.Tensor[[16, 64], pl.FP16]], out_8: pl.Out[pl.Tensor[[16, 64], pl.FP8E4M3FN]]) -> tuple[pl.Tensor[[16, 64], pl.BF16], pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.FP8E4M3FN]]:
        t: pl.Tile[[16, 64], pl.FP16] = pl.tile.load(x, [0, 0], [16, 64])
        b: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16)
        i: pl.Tile[[16, 64], pl.INT32] = pl.tile.load(n, [0, 0], [16, 64])
        h: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(i, target_type=pl.FP16, mode=3)
        e: pl.Tile[[16, 64], pl.FP8E4M3FN, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP8E4M3FN)
        r: pl.Tensor[[16, 64], pl.BF16] = pl.tile.store(b, [0, 0], out)
        r2: pl.Tensor[[16, 64], pl.FP16] = pl.tile.store(h, [0, 0], out_h)
        r3: pl.Tensor[[16, 64], pl.FP8E4M3FN] = pl.tile.store(e, [0, 0], out_8)
        return r, r2, r3
