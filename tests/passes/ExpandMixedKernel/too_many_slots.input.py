# pypto.program: too_many_slots
import pypto.language as pl

@pl.program
class too_many_slots:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"cross_core_slot": 6})
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 32], target_memory=pl.Mem.Vec)
        __tmp_v1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(__tmp_v0, 2.0)
        hm: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.move(__tmp_v1, target_memory=pl.Mem.Mat)
        __tmp_v2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        hm_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(hm, target_memory=pl.Mem.Left)
        __tmp_v2_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(__tmp_v2, target_memory=pl.Mem.Right)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(hm_Left, __tmp_v2_Right)
        acc_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(acc, target_memory=pl.Mem.Vec)
        __tmp_v3: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(acc_Vec)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v3, [0, 0], out)
        return r
