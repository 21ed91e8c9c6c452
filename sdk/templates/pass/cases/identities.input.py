# pypto.program: identities
import pypto.language as pl

@pl.program
class identities:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        t: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(x, [0, 0], [32, 64])
        a: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 1.0)
        b: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.divs(a, 1.0)
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.subs(b, 0.0)
        d: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(c, 0.0)
        e: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(d, 2.0)
        pl.tile.store(e, [0, 0], out)
        return
