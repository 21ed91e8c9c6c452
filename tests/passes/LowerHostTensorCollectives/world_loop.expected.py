# pypto.program: grad_sum_sig
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class grad_sum_sig:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def grad_sum_sig(self, g: pl.Tensor[[NR, 1, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 64], pl.FP32]]):
        gbuf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0"})
        sig_buf: pld.DistributedTensor[[16], pl.UINT8] = pld.tensor.alloc_window_buffer(16, attrs={"comm_domain": "comm_d0"})
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(g, r), pld.tensor.window(gbuf, [1, 64], dtype=pl.FP32), program="publish_dev")
        gw: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(gbuf, [1, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d0"})
        for device in pl.range(pl.const(0, pl.INT64), pld.system.world_size(), pl.const(1, pl.INT64)):
            pld.system.dispatch(device, gw, pld.tensor.window(sig_buf, [4, 1], dtype=pl.INT32), program="builtin.tensor.allreduce", attrs={"comm_domain": "comm_d0", "op": 0})
        gw_1: pld.DistributedTensor[[1, 64], pl.FP32] = gw
        for r_1 in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r_1, gw_1, pld.tensor.rank_slice(out, r_1), program="collect_dev")
