# pypto.program: pipelined
import pypto.language as pl

@pl.program
class pipelined:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[80, 64], pl.FP32], out: pl.Out[pl.Tensor[[80, 64], pl.FP32]]) -> pl.Tensor[[80, 64], pl.FP32]:
        for i, (o,) in pl.range(0, 4, 2, init_values=(out,), pipeline_stages=2):
            t_s0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [i * 16, 0], [16, 64])
            e_s0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_s0)
            r_s0: pl.Tensor[[80, 64], pl.FP32] = pl.tile.store(e_s0, [i * 16, 0], o)
            t_s1: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [(i + 1) * 16, 0], [16, 64])
            e_s1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_s1)
            r_s1: pl.Tensor[[80, 64], pl.FP32] = pl.tile.store(e_s1, [(i + 1) * 16, 0], r_s0)
            o2_main: pl.Tensor[[80, 64], pl.FP32] = pl.yield_(r_s1)
        t_r0: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [64, 0], [16, 64])
        e_r0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_r0)
        r_r0: pl.Tensor[[80, 64], pl.FP32] = pl.tile.store(e_r0, [64, 0], o2_main)
        o2: pl.Tensor[[80, 64], pl.FP32] = r_r0
        return o2
