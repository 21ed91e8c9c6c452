# pypto.program: publish
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class publish:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], block: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]]) -> pld.DistributedTensor[[16, 64], pl.FP32]:
        ctx: pl.Scalar[pl.INT64] = pld.system.get_comm_ctx(block)
        me: pl.Scalar[pl.INT32] = pld.system.rank(ctx)
        n: pl.Scalar[pl.INT32] = pld.system.nranks(ctx)
        t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(x, [0, 0], [16, 64])
        block_1: pld.DistributedTensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], block)
        pld.system.notify(sig, (me + pl.const(1, pl.INT32)) % n, [0, 0], 1)
        return block_1
