# pypto.program: n_too_big_for_acc
import pypto.language as pl

@pl.program
class n_too_big_for_acc:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 512], pl.FP16], b: pl.Tensor[[512, 256], pl.FP16], out: pl.Out[pl.Tensor[[256, 256], pl.FP32]]) -> pl.Tensor[[256, 256], pl.FP32]:
        ta: pl.Tile[[256, 512], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [256, 512], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[512, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [512, 256], target_memory=pl.Mem.Mat)
        for no, (out_iter,) in pl.range(0, 256, 128, init_values=(out,)):
            ta_l0: pl.Tile[[256, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, 0, [256, 128], target_memory=pl.Mem.Left)
            tb_l0: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, 0, no, [128, 128], target_memory=pl.Mem.Right)
            c_k0: pl.Tile[[256, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta_l0, tb_l0)
            for ko, (c_partial,) in pl.range(128, 512, 128, init_values=(c_k0,)):
                ta_l0_1: pl.Tile[[256, 128], pl.FP16, pl.Mem.Left] = pl.tile.extract(ta, 0, ko, [256, 128], target_memory=pl.Mem.Left)
                tb_l0_1: pl.Tile[[128, 128], pl.FP16, pl.Mem.Right] = pl.tile.extract(tb, ko, no, [128, 128], target_memory=pl.Mem.Right)
                c_next: pl.Tile[[256, 128], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_partial, ta_l0_1, tb_l0_1)
                c_block: pl.Tile[[256, 128], pl.FP32, pl.Mem.Acc] = pl.yield_(c_next)
            r_block: pl.Tensor[[256, 256], pl.FP32] = pl.tile.store(c_block, [0, no], out_iter)
            r: pl.Tensor[[256, 256], pl.FP32] = pl.yield_(r_block)
        return r
