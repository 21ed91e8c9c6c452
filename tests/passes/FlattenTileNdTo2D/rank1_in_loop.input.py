# pypto.program: rank1
import pypto.language as pl

@pl.program
class rank1:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[512], pl.FP32], out: pl.Out[pl.Tensor[[128], pl.FP32]]) -> pl.Tensor[[128], pl.FP32]:
        init: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.full([128], 0.0, dtype=pl.FP32)
        for i, (acc,) in pl.range(0, 4, 1, init_values=(init,)):
            off: pl.Scalar[pl.INDEX] = i * 128
            part: pl.Tile[[128], pl.FP32] = pl.tile.load(x, [off], [128])
            nxt: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, part)
            total: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        r: pl.Tensor[[128], pl.FP32] = pl.tile.store(total, [0], out)
        return r
