# pypto.program: mm
import pypto.language as pl

@pl.program
class mm:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], out: pl.Out[pl.Tensor[[32, 128], pl.FP32]]) -> pl.Tensor[[32, 128], pl.FP32]:
        ta: pl.Tile[[32, 64], pl.FP16] = pl.tile.load(a, [0, 0], [32, 64])
        tb: pl.Tile[[64, 128], pl.FP16] = pl.tile.load(b, [0, 0], [64, 128])
        c: pl.Tile[[32, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        r: pl.Tensor[[32, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
