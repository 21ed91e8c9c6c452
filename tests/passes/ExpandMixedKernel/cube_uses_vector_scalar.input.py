# pypto.program: cube_uses_vector_scalar
import pypto.language as pl

@pl.program
class cube_uses_vector_scalar:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], n: pl.Tensor[[1, 8], pl.INT32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        tn: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.load(n, [0, 0], [1, 8], target_memory=pl.Mem.Vec)
        k0: pl.Scalar[pl.INT32] = pl.tile.read(tn, [0, 0])
        tx: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, k0], [32, 32], target_memory=pl.Mem.Mat)
        tw: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        tx_Left: pl.Tile[[32, 32], pl.FP16, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
        tw_Right: pl.Tile[[32, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, tw_Right)
        __tmp_v0_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(__tmp_v0, target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0_Vec)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], out)
        return r
