# pypto.program: k_loop
import pypto.language as pl

@pl.program
class k_loop:
    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[32, 128], pl.FP16], w: pl.Tensor[[128, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        self.k_aic(x, w, out)
        self.k_aiv(x, w, out)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[32, 128], pl.FP16], w: pl.Tensor[[128, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.system.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        for i in pl.range(0, 2, 1):
            tx: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, i * 64], [32, 64], target_memory=pl.Mem.Mat)
            tw: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [i * 64, 0], [64, 32], target_memory=pl.Mem.Mat)
            tx_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
            tw_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
            __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, tw_Right)
            pl.tile.tpush_to_aiv(__tmp_v0, split=0)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[32, 128], pl.FP16], w: pl.Tensor[[128, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.system.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 32], 0.0, dtype=pl.FP32)
        for i, (acc_1,) in pl.range(0, 2, 1, init_values=(acc,)):
            __tmp_v0_Vec: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic([32, 32], dtype=pl.FP32, split=0)
            acc_2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc_1, __tmp_v0_Vec)
            pl.system.tfree_to_aic(__tmp_v0_Vec)
            acc_3: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.yield_(acc_2)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_3, [0, 0], out)
        return
