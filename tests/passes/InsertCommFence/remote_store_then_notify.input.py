# pypto.program: push
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class push:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 64], pl.FP32], inbox: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]]):
        ctx: pl.Scalar[pl.INT64] = pld.system.get_comm_ctx(inbox)
        me: pl.Scalar[pl.INT32] = pld.system.rank(ctx)
        right: pl.Scalar[pl.INT32] = (me + pl.const(1, pl.INT32)) % pld.system.nranks(ctx)
        t: pl.Tile[[1, 64], pl.FP32] = pl.tile.load(x, [0, 0], [1, 64])
        pld.tile.remote_store(t, inbox, right, [0, 0])
        pld.tile.remote_store(t, inbox, 0, [0, 0], atomic=1)
        pld.system.notify(sig, right, [0, 0], 1)
        return
