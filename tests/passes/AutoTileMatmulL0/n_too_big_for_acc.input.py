# pypto.program: n_too_big_for_acc
import pypto.language as pl

@pl.program
class n_too_big_for_acc:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 512], pl.FP16], b: pl.Tensor[[512, 256], pl.FP16], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        ta: pl.Tile[[256, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 256], target_memory=pl.Mem.Mat)
        c: pl.Tile[[256, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        r: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return r
