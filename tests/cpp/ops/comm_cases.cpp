// The distributed (pld) ops: window operands must be windows (DistributedTensor), signals INT32.
#include "op_test_util.h"

namespace pypto::ops::testing {

namespace {
const DataType I32 = DataType::INT32;
const DataType F32 = DataType::FP32;

ExprPtr Signal(const std::vector<int64_t>& shape = {4, 1}) { return Window(shape, I32, "sig"); }
ExprPtr Peer() { return Scalar(I32, "peer"); }
Attrs Mode(const std::string& mode) { return {{"mode", mode}}; }
}  // namespace

std::vector<SuccessCase> CommSuccessCases() {
  ExprPtr ctx = Scalar(DataType::INT64, "ctx");
  return {
      {"system.get_comm_ctx", {Window({1, 64})}, {}, "Scalar[INT64]"},
      {"system.rank", {ctx}, {}, "Scalar[INT32]"},
      {"system.rank", {Window({1, 64})}, {}, "Scalar[INT32]"},
      {"system.nranks", {ctx}, {}, "Scalar[INT32]"},
      {"system.notify", {Signal(), Peer(), List({2, 0}), Int(1)}, {{"op", int64_t{1}}}, "Unknown"},
      {"system.wait", {Signal(), List({3, 0}), Int(1)}, {{"cmp", int64_t{0}}}, "Unknown"},
      {"system.defer_wait", {Signal(), List({3, 0}), Int(7)}, {}, "Unknown"},
      {"system.defer_wait", {Signal(), List({3, 0}), Int(0)}, {{"cmp", int64_t{1}}}, "Unknown"},
      {"tile.remote_load", {Window({8, 64}), Peer(), List({4, 0}), List({4, 64})}, {}, "Tile[[4, 64], FP32, Vec]"},
      {"tile.remote_load",
       {Window({8, 64}), Peer(), List({4, 0}), List({4, 64}), List({2, 64})},
       {},
       "Tile[[4, 64], FP32, Vec, valid=[2, 64]]"},
      {"tile.remote_store", {Tile({4, 64}, F32, MemorySpace::Vec), Window({8, 64}), Peer(), List({4, 0})},
       {{"atomic", int64_t{1}}}, "Unknown"},
      {"tensor.put", {Window({8, 64}), Peer(), Tensor({8, 64})}, {}, "Unknown"},
      {"tensor.put",
       {Window({8, 64}), Peer(), Tensor({16, 64}), List({0, 0}), List({8, 0}), List({8, 64})},
       {{"chunk_rows", int64_t{4}}, {"chunk_cols", int64_t{64}}, {"pipeline", true}},
       "Unknown"},
      {"tensor.get", {Tensor({1, 64}), Peer(), Window({8, 64}), List({0, 0}), List({7, 0}), List({1, 64})}, {},
       "Unknown"},
      {"tensor.remote_store", {Tensor({2, 64}), Window({8, 64}), Peer(), List({6, 0})}, {}, "Unknown"},
      {"tensor.allreduce", {Window({4, 64}), Signal()}, {{"op", int64_t{1}}}, "DistributedTensor[[4, 64], FP32]"},
      {"tensor.allreduce", {Window({4, 64}), Signal({6, 4})}, Mode("ring"), "DistributedTensor[[4, 64], FP32]"},
      {"tensor.barrier", {Signal()}, {}, "DistributedTensor[[4, 1], INT32]"},
      {"tensor.broadcast", {Window({1, 64}), Signal()}, {{"root", int64_t{2}}}, "DistributedTensor[[1, 64], FP32]"},
      {"tensor.reduce_scatter", {Window({4, 64}), Signal()}, {}, "DistributedTensor[[4, 64], FP32]"},
      {"tensor.allgather", {Tensor({1, 64}), Window({4, 64}), Signal()}, {}, "DistributedTensor[[4, 64], FP32]"},
      {"tensor.all_to_all", {Window({4, 64}, F32, "stage"), Window({4, 64}), Signal()}, {},
       "DistributedTensor[[4, 64], FP32]"},
      {"tensor.all_to_all_v",
       {Tensor({8, 64}), Window({8, 64}), Signal(), Tensor({4}, I32), Window({4, 1}, I32, "recv")},
       {},
       "DistributedTensor[[8, 64], FP32]"},
      {"tensor.all_to_all_v",
       {Window({8, 64}, F32, "input"), Window({8, 64}), Signal(), Tensor({4, 1}, I32), Window({4, 1}, I32, "recv")},
       {},
       "DistributedTensor[[8, 64], FP32]"},
      // The host orchestrator's ops.
      {"system.world_size", {}, {}, "Scalar[INT64]"},
      {"tensor.alloc_window_buffer", {Int(256)}, {}, "DistributedTensor[[256], UINT8]"},
      {"tensor.window", {Window({256}, DataType::UINT8, "buf"), List({1, 64})}, {{"dtype", F32}},
       "DistributedTensor[[1, 64], FP32]"},
      {"tensor.rank_slice", {Tensor({4, 1, 64}), Int(2)}, {}, "Tensor[[1, 64], FP32]"},
      {"tensor.host_slice", {Tensor({4, 64}), List({2, 32}), List({1, 0})}, {}, "Tensor[[2, 32], FP32]"},
      {"system.dispatch", {Int(1), Tensor({1, 64}), Window({1, 64})}, {{"program", std::string("prog")}}, "Unknown"},
  };
}

std::vector<ErrorCase> CommErrorCases() {
  const std::string not_a_window = "not a window: peers reach only window buffers";
  return {
      {"system.get_comm_ctx", {Tensor({1, 64})}, {}, "system.get_comm_ctx: argument 'window' has type"},
      {"system.rank", {Scalar(I32)}, {}, "must be a comm context (pld.get_comm_ctx(window))"},
      {"system.nranks", {Tensor({4})}, {}, "must be a comm context"},
      {"system.notify", {Tensor({4, 1}, I32), Peer(), List({0, 0}), Int(1)}, {}, not_a_window},
      {"system.notify", {Window({4, 1}), Peer(), List({0, 0}), Int(1)}, {},
       "signal 'signal' is a FP32 window; signals are INT32 cells"},
      {"system.notify", {Signal(), Peer(), List({0, 0}), Int(1)}, {{"op", int64_t{2}}},
       "keyword 'op' must be one of pld.NotifyOp.AtomicAdd (0), pld.NotifyOp.Set (1), got 2"},
      {"system.wait", {Signal(), List({4, 0}), Int(1)}, {}, "system.wait: signal cell [1, 1] at offsets [4, 0] overruns signal window [4, 1]"},
      {"system.wait", {Signal(), List({0, 0}), Float(1.0)}, {}, "must be an integer scalar"},
      {"system.defer_wait", {Signal(), List({0, 0}), Int(1)}, {{"cmp", int64_t{0}}},
       "pld.system.defer_wait supports cmp=pld.WaitCmp.Ge only: the scheduler's deferred condition is 'cell >= "
       "expected'; for an Eq wait use pld.system.wait"},
      {"system.defer_wait", {Signal(), List({0, 0}), Int(-1)}, {},
       "pld.system.defer_wait: expected is -1, but deferred conditions compare values in [0, INT32_MAX]"},
      {"system.defer_wait", {Window({4, 1}), List({0, 0}), Int(1)}, {},
       "signal 'signal' is a FP32 window; signals are INT32 cells"},
      {"system.defer_wait", {Tensor({4, 1}, I32), List({0, 0}), Int(1)}, {}, not_a_window},
      {"tile.remote_load", {Tensor({8, 64}), Peer(), List({0, 0}), List({4, 64})}, {}, not_a_window},
      {"tile.remote_load", {Window({8, 64}), Float(0.5), List({0, 0}), List({4, 64})}, {},
       "argument 'peer' (position 1) must be an integer scalar"},
      {"tile.remote_store", {Tile({4, 64}, DataType::FP16, MemorySpace::Vec), Window({8, 64}), Peer(), List({0, 0})},
       {}, "a FP16 tile cannot be stored into a FP32 window; pl.cast the tile first"},
      {"tile.remote_store", {Tile({4, 64}, I32, MemorySpace::Vec), Window({8, 64}, I32), Peer(), List({0, 0})},
       {{"atomic", int64_t{2}}}, "keyword 'atomic' must be pld.AtomicType.None_ (0) or Add (1), got 2"},
      {"tensor.put", {Tensor({8, 64}), Peer(), Tensor({8, 64})}, {}, not_a_window},
      {"tensor.put", {Window({8, 64}), Peer(), Tensor({4, 64})}, {},
       "without dst_offsets/src_offsets/shape the whole tensors move, so their shapes must be equal"},
      {"tensor.put", {Window({8, 64}), Peer(), Tensor({8, 64})}, {{"pipeline", true}},
       "pipeline=True double-buffers chunks, so it needs both chunk_rows > 0 and chunk_cols > 0 (got 0, 0)"},
      {"tensor.get", {Tensor({8, 64}), Peer(), Window({8, 64}), List({0, 0})}, {},
       "give dst_offsets, src_offsets and shape together, or none of them"},
      {"tensor.remote_store", {Tensor({8, 64}), Window({8, 64}), Peer(), List({4, 0})}, {}, "tensor.remote_store"},
      {"tensor.allreduce", {Window({4, 64}), Signal()}, Mode("tree"), "keyword 'mode' must be 'mesh' or 'ring'"},
      {"tensor.allreduce", {Window({4, 64}, DataType::INT8), Signal()}, {},
       "allreduce reduces FP32, FP16 or INT32 windows, not INT8"},
      {"tensor.barrier", {Window({4, 1})}, {}, "the signal window 'signal' must be INT32"},
      {"tensor.broadcast", {Window({1, 64}), Signal()}, {}, "missing the required keyword argument 'root'"},
      {"tensor.reduce_scatter", {Window({4, 64}), Signal()}, {{"op", int64_t{1}}},
       "reduce_scatter supports op=pld.ReduceOp.Sum only"},
      {"tensor.allgather", {Tensor({1, 64}, I32), Window({4, 64}), Signal()}, {},
       "the source and out must have the same dtype"},
      {"tensor.all_to_all", {Window({4, 64}), Tensor({4, 64}), Signal()}, {}, not_a_window},
      {"tensor.all_to_all_v", {Tensor({8, 64}), Window({8, 64}), Signal(), Tensor({4}, I32), Tensor({4, 1}, I32)},
       {}, not_a_window},
      {"tensor.all_to_all_v",
       {Tensor({6, 64}), Window({6, 64}), Signal(), Tensor({4}, I32), Window({4, 1}, I32, "recv")},
       {}, "target has 6 rows, not a multiple of NR = 4 (recv_counts' rows)"},
      {"tensor.all_to_all_v",
       {Tensor({8, 64}), Window({8, 64}), Signal(), Tensor({2}, I32), Window({4, 1}, I32, "recv")},
       {}, "send_counts has 2 rows but recv_counts 4"},
      {"tensor.all_to_all_v",
       {Tensor({8, 64}), Window({8, 64}), Signal(), Tensor({4}, F32), Window({4, 1}, I32, "recv")},
       {}, "'send_counts' must be INT32 [NR] or [NR, 1]"},
      {"tensor.all_to_all_v",
       {Tensor({8, 64}, I32), Window({8, 64}), Signal(), Tensor({4}, I32), Window({4, 1}, I32, "recv")},
       {}, "the input and target must have the same dtype"},
      {"system.world_size", {Int(0)}, {}, "system.world_size takes 0 positional argument(s) but 1 were given"},
      {"tensor.alloc_window_buffer", {Int(0)}, {}, "a window buffer needs a positive size in bytes, got 0"},
      {"tensor.window", {Window({64}, DataType::UINT8, "buf"), List({1, 64})}, {{"dtype", F32}},
       "the view needs 256 bytes (64 x FP32) but the buffer has 64"},
      {"tensor.window", {Window({1, 64}), List({1, 64})}, {{"dtype", F32}}, "not a window buffer"},
      {"tensor.rank_slice", {Tensor({64}), Int(0)}, {}, "drops the leading rank dim of a host tensor [NR, ...]"},
      {"tensor.rank_slice", {Window({4, 64}), Int(0)}, {}, "a window is the same on every rank"},
      {"tensor.host_slice", {Tensor({4, 64}), List({2, 32, 1}), List({0, 0})}, {},
       "the region has 3 extents for a tensor of rank 2"},
      {"system.dispatch", {Float(1.0)}, {{"program", std::string("prog")}}, "an integer device (rank)"},
  };
}

}  // namespace pypto::ops::testing
