# pypto.program: bulk
import pypto.language as pl
import pypto.language.distributed as pld

@pl.program
class bulk:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[16, 64], pl.FP32], dst: pl.InOut[pld.DistributedTensor[[16, 64], pl.FP32]], halo: pl.InOut[pld.DistributedTensor[[1, 64], pl.FP32]], local: pl.Out[pl.Tensor[[1, 64], pl.FP32]], sig: pl.InOut[pld.DistributedTensor[[1, 8], pl.INT32]]):
        ctx: pl.Scalar[pl.INT64] = pld.system.get_comm_ctx(dst)
        me: pl.Scalar[pl.INT32] = pld.system.rank(ctx)
        n: pl.Scalar[pl.INT32] = pld.system.nranks(ctx)
        pld.tensor.put(dst, (me + pl.const(1, pl.INT32)) % n, src, chunk_rows=8, chunk_cols=64, pipeline=True)
        pl.system.fence()
        pld.system.notify(sig, (me + pl.const(1, pl.INT32)) % n, [0, 0], 1)
        pld.system.wait(sig, [0, 0], 1)
        pl.system.fence()
        pld.tensor.get(halo, (me + n - pl.const(1, pl.INT32)) % n, dst, [0, 0], [15, 0], [1, 64])
        pl.system.fence()
        pld.tensor.get(local, (me + n - pl.const(1, pl.INT32)) % n, dst, [0, 0], [0, 0], [1, 64])
        return
