# pypto.program: blocks_assembled_for_a_vector_consumer
import pypto.language as pl

@pl.program
class blocks_assembled_for_a_vector_consumer:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4096, 16], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[4096, 64], pl.FP16]]) -> pl.Tensor[[4096, 64], pl.FP16]:
        ta: pl.Tile[[4096, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [4096, 16], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        c: pl.Tile[[4096, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        h: pl.Tile[[4096, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(c, target_type=pl.FP16)
        r: pl.Tensor[[4096, 64], pl.FP16] = pl.tile.store(h, [0, 0], out)
        return r
