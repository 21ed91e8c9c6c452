# pypto.program: fits_unchanged
import pypto.language as pl

@pl.program
class fits_unchanged:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 128], pl.FP16], b: pl.Tensor[[128, 128], pl.FP16], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[128, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [128, 128], target_memory=pl.Mem.Mat)
        c: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        r: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
