# pypto.program: carried
import pypto.language as pl

@pl.program
class carried:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], flag: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        tmp: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.create([64, 64], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="producer"):
            for r, (tmp_1,) in pl.range(0, 64, 16, init_values=(tmp,)):
                t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [r, 0], [16, 64], target_memory=pl.Mem.Vec)
                e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
                tmp_2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(e, [r, 0], tmp_1)
                tmp_3: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(tmp_2)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="consumer"):
            t2: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(tmp_3, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
            if flag > 0:
                out_1: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(t2, [0, 0], out)
                out_2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out_1)
            else:
                out_2: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out)
        return out_2
