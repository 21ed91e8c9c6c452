# pypto.program: linear_relu_up_down
import pypto.language as pl

@pl.program
class linear_relu_up_down:
    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[1, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "cross_core_slot": 4})
        self.k_aic(x, w, b, out)
        self.k_aiv(x, w, b, out)
        self.k_aiv(x, w, b, out)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[1, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "cross_core_slot": 4})
        pl.system.aic_initialize_pipe(dir_mask=1, slot_size=2048, slot_num=4)
        tx: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        tw: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        tx_Left: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(tx, target_memory=pl.Mem.Left)
        tw_Right: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(tx_Left, tw_Right)
        pl.tile.tpush_to_aiv(acc, split=1)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[32, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], b: pl.Tensor[[1, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "cross_core_slot": 4})
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        pl.system.aiv_initialize_pipe(dir_mask=1, slot_size=2048, slot_num=4)
        tb: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(b, [0, 0], [1, 32], target_memory=pl.Mem.Vec)
        acc_Vec: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic([16, 32], dtype=pl.FP32, split=1)
        __tmp_v0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(acc_Vec, tb)
        pl.system.tfree_to_aic(acc_Vec)
        __tmp_v1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.relu(__tmp_v0)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v1, [0 + lane * 16, 0], out)
        return
