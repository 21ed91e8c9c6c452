# pypto.program: scalars
import pypto.language as pl

@pl.program
class scalars:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP32], alpha: pl.Scalar[pl.FP32], ret0_out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        x_tile: pl.Tile[[32, 64], pl.FP32] = pl.tile.load(x, [0, 0], [32, 64])
        a: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(x_tile, alpha)
        b: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(a, 1.0)
        c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.maximums(b, 0.0)
        ret0: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(c, [0, 0], ret0_out)
        return ret0
