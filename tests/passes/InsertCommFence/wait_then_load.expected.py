# pypto.program: acquire
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class acquire:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, inbox: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]], got: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        ctx: pl.Scalar[pl.INT64] = pld.system.get_comm_ctx(inbox)
        me: pl.Scalar[pl.INT32] = pld.system.rank(ctx)
        if me != pl.const(0, pl.INT32):
            pld.system.wait(sig, [0, 0], me)
            pl.system.fence()
        pld.system.wait(sig, [0, 1], 1, cmp=0)
        pl.system.fence()
        t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pld.tile.remote_load(inbox, me, [0, 0], [1, 64])
        got_1: pl.Tensor[[1, 64], pl.FP32] = pl.tile.store(t, [0, 0], got)
        return got_1
