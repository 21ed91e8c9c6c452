# pypto.program: two_domains
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class two_domains:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def two_domains(self, x: pl.Tensor[[NR, 1, 64], pl.FP32]):
        a_buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 1]})
        b_buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d1", "comm_devices": [1, 2]})
        for r in pl.range(0, 2, 1):
            pld.system.dispatch(r, pld.tensor.rank_slice(x, r), pld.tensor.window(a_buf, [1, 64], dtype=pl.FP32), program="publish_dev")
        for r_1 in pl.range(1, 3, 1):
            pld.system.dispatch(r_1, pld.tensor.rank_slice(x, r_1), pld.tensor.window(b_buf, [1, 64], dtype=pl.FP32), program="publish_dev")
        b: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(b_buf, [1, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d1", "comm_devices": [1, 2]})
        sig_buf: pld.DistributedTensor[[12], pl.UINT8] = pld.tensor.alloc_window_buffer(12, attrs={"comm_domain": "comm_d1", "comm_devices": [1, 2]})
        pld.tensor.barrier(pld.tensor.window(sig_buf, [3, 1], dtype=pl.INT32), attrs={"comm_domain": "comm_d1", "comm_devices": [1, 2]})
        b_1: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.allreduce(b, pld.tensor.window(sig_buf, [3, 1], dtype=pl.INT32), attrs={"comm_domain": "comm_d1", "comm_devices": [1, 2]})
