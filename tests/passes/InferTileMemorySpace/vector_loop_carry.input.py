# pypto.program: vloop
import pypto.language as pl

@pl.program
class vloop:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        init: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(x, [0, 0], [64, 64])
        for i, (acc,) in pl.range(1, 4, 1, init_values=(init,)):
            row: pl.Scalar[pl.INDEX] = i * 64
            part: pl.Tile[[64, 64], pl.FP32] = pl.tile.load(x, [row, 0], [64, 64])
            nxt: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, part)
            total: pl.Tile[[64, 64], pl.FP32] = pl.yield_(nxt)
        scaled: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(total, 0.25)
        r: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(scaled, [0, 0], out)
        return r
