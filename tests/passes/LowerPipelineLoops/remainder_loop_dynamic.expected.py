# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[256, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], 0.0, dtype=pl.FP32)
        i_main_stop: pl.Scalar[pl.INDEX] = (pl.max(n, 0) + 1) // 2 // 3 * 6
        for i, (acc,) in pl.range(0, i_main_stop, 6, init_values=(acc0,), pipeline_stages=3):
            t_s0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [i * 16, 0], [16, 64])
            s_s0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, t_s0)
            t_s1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [(i + 2) * 16, 0], [16, 64])
            s_s1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(s_s0, t_s1)
            t_s2: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [(i + 4) * 16, 0], [16, 64])
            s_s2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(s_s1, t_s2)
            total_main: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(s_s2)
        for i_r, (acc_r,) in pl.range(i_main_stop, n, 2, init_values=(total_main,)):
            t_r: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [i_r * 16, 0], [16, 64])
            s_r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc_r, t_r)
            total: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(s_r)
        r: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(total, [0, 0], out)
        return r
