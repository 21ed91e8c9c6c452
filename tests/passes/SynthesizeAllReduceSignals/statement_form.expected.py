# pypto.program: one_stmt
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class one_stmt:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def one_stmt(self, g: pl.Tensor[[NR, 1, 64], pl.FP32]):
        gbuf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256)
        gw: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(gbuf, [1, 64], dtype=pl.FP32)
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(g, r), gw, program="publish_dev")
        gw_signal_ranks: pl.Scalar[pl.INT64] = pld.system.world_size()
        gw_signal_buffer: pld.DistributedTensor[[pl.const(4, pl.INT64) * gw_signal_ranks * pl.const(1, pl.INT64)], pl.UINT8] = pld.tensor.alloc_window_buffer(pl.const(4, pl.INT64) * gw_signal_ranks * pl.const(1, pl.INT64))
        gw_signal: pld.DistributedTensor[[gw_signal_ranks, pl.const(1, pl.INT64)], pl.INT32] = pld.tensor.window(gw_signal_buffer, [gw_signal_ranks, pl.const(1, pl.INT64)], dtype=pl.INT32)
        pld.tensor.allreduce(gw, gw_signal)
