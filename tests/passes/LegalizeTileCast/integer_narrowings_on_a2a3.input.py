# pypto.program: narrowings
import pypto.language as pl

@pl.program
class narrowings:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.INT32], q: pl.Tensor[[16, 64], pl.INT8], f: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.INT8]], out_u: pl.Out[pl.Tensor[[16, 64], pl.UINT8]], out_r: pl.Out[pl.Tensor[[16, 64], pl.INT8]]) -> tuple[pl.Tensor[[16, 64], pl.INT8], pl.Tensor[[16, 64], pl.UINT8], pl.Tensor[[16, 64], pl.INT8]]:
        t: pl.Tile[[16, 64], pl.INT32] = pl.tile.load(x, [0, 0], [16, 64])
        n: pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.INT8, mode=1)
        s: pl.Tile[[16, 64], pl.INT8] = pl.tile.load(q, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.UINT8, pl.Mem.Vec] = pl.tile.cast(s, target_type=pl.UINT8, mode=1)
        g: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(f, [0, 0], [16, 64])
        r: pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec] = pl.tile.cast(g, target_type=pl.INT8, mode=1)
        o1: pl.Tensor[[16, 64], pl.INT8] = pl.tile.store(n, [0, 0], out)
        o2: pl.Tensor[[16, 64], pl.UINT8] = pl.tile.store(u, [0, 0], out_u)
        o3: pl.Tensor[[16, 64], pl.INT8] = pl.tile.store(r, [0, 0], out_r)
        return o1, o2, o3
