# pypto.program: k_too_big
import pypto.language as pl

@pl.program
class k_too_big:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 1024], pl.FP16], b: pl.Tensor[[1024, 128], pl.FP16], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        ta: pl.Tile[[128, 1024], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [128, 1024], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[1024, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [1024, 128], target_memory=pl.Mem.Mat)
        ta_l0: pl.Tile[[128, 256], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, [128, 256], target_memory=pl.Mem.Left)
        tb_l0: pl.Tile[[256, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, 0, [256, 128], target_memory=pl.Mem.Right)
        c_k0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l0, tb_l0)
        for ko, (c_partial,) in pl.range(256, 1024, 256, init_values=(c_k0,)):
            ta_l0_1: pl.Tile[[128, 256], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, [128, 256], target_memory=pl.Mem.Left)
            tb_l0_1: pl.Tile[[256, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, 0, [256, 128], target_memory=pl.Mem.Right)
            c_next: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_partial, ta_l0_1, tb_l0_1)
            c_block: pl.Tile[[128, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_next)
        r_block: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(c_block, [0, 0], out)
        return r_block
