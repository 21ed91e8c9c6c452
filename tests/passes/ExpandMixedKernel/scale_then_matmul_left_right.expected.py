# pypto.program: scale_then_matmul_left_right
import pypto.language as pl

@pl.program
class scale_then_matmul_left_right:
    @pl.function(type=pl.FunctionType.Group)
    def k(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        self.k_aic(x, w, out)
        self.k_aiv(x, w, out)
        self.k_aiv(x, w, out)
        return out

    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        pl.system.aic_initialize_pipe(dir_mask=2, slot_size=2048, slot_num=2)
        hm: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv([32, 32], dtype=pl.FP32, split=2)
        tw: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        hm_Left: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(hm, target_memory=pl.Mem.Left)
        pl.system.tfree_to_aiv(hm)
        tw_Right: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.tile.move(tw, target_memory=pl.Mem.Right)
        __tmp_v0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(hm_Left, tw_Right)
        r: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(__tmp_v0, [0, 0], out)
        return

    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(self, x: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        lane: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        pl.system.aiv_initialize_pipe(dir_mask=2, slot_size=2048, slot_num=2)
        tx: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0 + lane * 16], [32, 16], target_memory=pl.Mem.Vec)
        h: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.muls(tx, 2.0)
        pl.tile.tpush_to_aic(h, split=2)
        return
