# pypto.program: gather
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class gather:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def gather(self, x: pl.Tensor[[NR, 1, 64], pl.FP32], out: pl.Out[pl.Tensor[[NR, 1, 64], pl.FP32]]):
        mine_buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0"})
        all_buf: pld.DistributedTensor[[1024], pl.UINT8] = pld.tensor.alloc_window_buffer(1024, attrs={"comm_domain": "comm_d0"})
        sig_buf: pld.DistributedTensor[[16], pl.UINT8] = pld.tensor.alloc_window_buffer(16, attrs={"comm_domain": "comm_d0"})
        mine: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(mine_buf, [1, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d0"})
        rows: pld.DistributedTensor[[4, 64], pl.FP32] = pld.tensor.window(all_buf, [4, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d0"})
        for r in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), mine, program="publish_dev")
        for device in pl.range(pl.const(0, pl.INT64), pld.system.world_size(), pl.const(1, pl.INT64)):
            pld.system.dispatch(device, mine, rows, pld.tensor.window(sig_buf, [4, 1], dtype=pl.INT32), program="builtin.tensor.allgather", attrs={"comm_domain": "comm_d0"})
        rows_1: pld.DistributedTensor[[4, 64], pl.FP32] = rows
        for r_1 in pl.range(0, pld.system.world_size(), 1):
            pld.system.dispatch(r_1, rows_1, pld.tensor.rank_slice(out, r_1), program="collect_dev")
