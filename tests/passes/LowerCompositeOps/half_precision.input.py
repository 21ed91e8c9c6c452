# pypto.program: trig_fp16
import pypto.language as pl

@pl.program
class trig_fp16:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[8, 32], pl.FP16], out: pl.Out[pl.Tensor[[8, 32], pl.FP16]]) -> pl.Tensor[[8, 32], pl.FP16]:
        a: pl.Tile[[8, 32], pl.FP16] = pl.tile.load(x, [0, 0], [8, 32])
        s: pl.Tile[[8, 32], pl.FP16] = pl.tile.sin(a)
        r: pl.Tensor[[8, 32], pl.FP16] = pl.tile.store(s, [0, 0], out)
        return r
