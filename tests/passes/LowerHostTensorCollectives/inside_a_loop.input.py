# pypto.program: carried
import pypto.language as pl
import pypto.language.distributed as pld

NR = pl.dynamic("NR")

@pl.program
class carried:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def carried(self, g: pl.Tensor[[NR, 1, 64], pl.FP32]):
        buf: pld.DistributedTensor[[256], pl.UINT8] = pld.tensor.alloc_window_buffer(256, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        sig_buf: pld.DistributedTensor[[16], pl.UINT8] = pld.tensor.alloc_window_buffer(16, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        w: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.window(buf, [1, 64], dtype=pl.FP32, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        sig: pld.DistributedTensor[[4, 1], pl.INT32] = pld.tensor.window(sig_buf, [4, 1], dtype=pl.INT32, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
        for i, (w_1,) in pl.range(0, 3, 1, init_values=(w,)):
            for r in pl.range(0, 4, 2):
                pld.system.dispatch(r, pld.tensor.rank_slice(g, r), w_1, program="publish_dev")
            w_2: pld.DistributedTensor[[1, 64], pl.FP32] = pld.tensor.allreduce(w_1, sig, attrs={"comm_domain": "comm_d0", "comm_devices": [0, 2]})
            w_3: pld.DistributedTensor[[1, 64], pl.FP32] = pl.yield_(w_2)
