# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], 0.0, dtype=pl.FP32)
        for i, (acc,) in pl.pipeline(0, n, 2, init_values=(acc0,), stage=3):
            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [i * 16, 0], [16, 64])
            s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t)
            total: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(s)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(total, [0, 0], out)
        return r
