# pypto.program: if_phi
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class if_phi:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def if_phi(self, g: pl.Tensor[[NR, 1, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 64], pl.FP32]]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        sig_buf: pld.DistributedTensor[[16], pl.UINT8] = pld.tensor.alloc_window_buffer(16)
        w: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32)
        if pld.system.world_size() > pl.const(2, pl.INT64):
            w_1: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.allreduce(w, pld.tensor.window(sig_buf, [4, 1], dtype=pl.INT32))
            w_2: pld.DistributedTensor[[1, 64], pl.FP32] = pl.yield_(w_1)
        else:
            w_2: pld.DistributedTensor[[1, 64], pl.FP32] = pl.yield_(w)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, w_2, pld.tensor.rank_slice(out, r), program="collect_dev")
