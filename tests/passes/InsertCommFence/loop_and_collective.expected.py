# pypto.program: rows
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class rows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], block: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[4, 1], pl.INT32]]) -> pld.DistributedTensor[[16, 64], pl.FP32]:
        for i, (block_1,) in pl.range(0, 2, 1, init_values=(block,)):
            t: pl.Tile[[8, 64], pl.FP32] = pl.tile.load(x, [i * 8, 0], [8, 64])
            block_2: pld.DistributedTensor[[16, 64], pl.FP32] = pl.tile.store(t, [i * 8, 0], block_1)
            pl.system.fence()
            block_3: pld.DistributedTensor[[16, 64], pl.FP32] = pl.yield_(block_2)
        block_4: pld.DistributedTensor[[16, 64], pl.FP32] = pld.tensor.allreduce(block_3, sig)
        return block_4
