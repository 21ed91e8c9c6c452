# pypto.program: hand_written
import pypto.language as pl

@pl.program
class hand_written:
    @pl.function(type=pl.FunctionType.AIV)
    def consumer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.system.aiv_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        for i in pl.range(0, 2, 1):
            a: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic([16, 64], dtype=pl.FP32)
            __tmp_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(a, 1.0)
            pl.tile.store(__tmp_v0, [0, 0], out)
            pl.system.tfree_to_aic(a)
        return

    @pl.function(type=pl.FunctionType.Group)
    def g(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        self.producer(x, out)
        self.consumer(x, out)
        return

    @pl.function(type=pl.FunctionType.AIC)
    def producer(self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        pl.system.aic_initialize_pipe(dir_mask=1, slot_size=4096, slot_num=2)
        for i in pl.range(0, 2, 1):
            __tmp_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
            pl.tile.tpush_to_aiv(__tmp_v0)
        return
