# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[80, 64], pl.FP32], out: pl.Out[pl.Tensor[[80, 64], pl.FP32]]) -> pl.Tensor[[80, 64], pl.FP32]:
        for i, (o,) in pl.pipeline(0, 5, 1, init_values=(out,), stage=2):
            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [i * 16, 0], [16, 64])
            e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
            r: pl.Tensor[[80, 64], pl.FP32] = pl.tile.store(e, [i * 16, 0], o)
            o2: pl.Tensor[[80, 64], pl.FP32] = pl.yield_(r)
        return o2
