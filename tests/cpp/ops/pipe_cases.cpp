// The cross-core pipe ops: pushes, pops, frees and the pipe's init, per side of the cluster.
#include "op_test_util.h"

namespace pypto::ops::testing {

namespace {
const DataType F32 = DataType::FP32;
const DataType F16 = DataType::FP16;

Attrs Split(int64_t split) { return {{"split", split}}; }
Attrs PopKwargs(DataType dtype, int64_t split = 0) { return {{"dtype", dtype}, {"split", split}}; }
Attrs InitKwargs(int64_t dir_mask, int64_t slot_size, int64_t slot_num) {
  return {{"dir_mask", dir_mask}, {"slot_size", slot_size}, {"slot_num", slot_num}};
}
}  // namespace

std::vector<SuccessCase> PipeSuccessCases() {
  return {
      {"tile.tpush_to_aiv", {Tile({32, 64}, F32, MemorySpace::Acc)}, Split(1), "Unknown"},
      {"tile.tpush_to_aiv", {Tile({16, 16}, F16, MemorySpace::Mat)}, {}, "Unknown"},
      // A lane pushes its half: its own extent along the split axis need not be even.
      {"tile.tpush_to_aic", {Tile({17, 64}, F32, MemorySpace::Vec)}, Split(1), "Unknown"},
      {"tile.tpush_to_aic", {Tile({16, 32}, F32)}, Split(2), "Unknown"},
      {"tile.tpop_from_aic", {List({16, 64})}, PopKwargs(F32, 1), "Tile[[16, 64], FP32, Vec]"},
      {"tile.tpop_from_aic", {List({8, 8})}, {{"dtype", F16}}, "Tile[[8, 8], FP16, Vec]"},
      {"tile.tpop_from_aiv", {List({32, 64})}, PopKwargs(F32, 2), "Tile[[32, 64], FP32, Mat]"},
      {"system.tfree_to_aic", {Tile({16, 64}, F32, MemorySpace::Vec)}, {}, "Unknown"},
      {"system.tfree_to_aiv", {Tile({32, 64}, F32, MemorySpace::Mat)}, {}, "Unknown"},
      {"system.aic_initialize_pipe", {}, InitKwargs(1, 8192, 2), "Unknown"},
      {"system.aic_initialize_pipe", {}, {{"dir_mask", int64_t{3}}, {"slot_size", int64_t{1024}}}, "Unknown"},
      {"system.aiv_initialize_pipe", {}, InitKwargs(3, 1024, 4), "Unknown"},
      {"system.aiv_initialize_pipe", {}, InitKwargs(2, 1024, 8), "Unknown"},
      // The crossings of a pl.split_aiv region: a lane's part of a cube tile, the lanes' parts joined.
      {"tile.aiv_shard", {Tile({32, 64}, F32, MemorySpace::Acc)}, Split(1), "Tile[[16, 64], FP32, Vec]"},
      {"tile.aiv_shard", {Tile({32, 64}, F32, MemorySpace::Acc)}, Split(0), "Tile[[32, 64], FP32, Vec]"},
      {"tile.aic_gather", {Tile({32, 16}, F32, MemorySpace::Vec)}, Split(2), "Tile[[32, 32], FP32, Mat]"},
      {"system.reserve_buffer", {}, {{"name", std::string("c2v")}, {"size", int64_t{8192}}}, "Scalar[INT64]"},
      {"system.import_peer_buffer", {}, {{"name", std::string("c2v")}, {"peer", std::string("consumer")}},
       "Scalar[INT64]"},
  };
}

std::vector<ErrorCase> PipeErrorCases() {
  return {
      {"tile.tpush_to_aiv", {Tile({32, 64}, F32, MemorySpace::Vec)}, {},
       "tile.tpush_to_aiv: argument 'tile' is in MemorySpace.Vec, but the AIC runs this op and its pipe tiles live "
       "in MemorySpace.Mat or MemorySpace.Acc; tile.move it there first"},
      {"tile.tpush_to_aiv", {Tile({17, 64}, F32, MemorySpace::Acc)}, Split(1),
       "tile.tpush_to_aiv: split=1 (up_down) halves the pushed tile's 17 rows between the two AIV lanes, which needs "
       "an even count; pad the pushed tile to 18 rows and narrow its valid shape"},
      {"tile.tpush_to_aiv", {Tile({16, 16}, F32, MemorySpace::Mat)}, Split(3),
       "tile.tpush_to_aiv: keyword 'split' must be one of 0=none, 1=up_down, 2=left_right, got 3"},
      {"tile.tpush_to_aic", {Tile({16, 16}, F32, MemorySpace::Acc)}, {},
       "tile.tpush_to_aic: argument 'tile' is in MemorySpace.Acc, but an AIV lane runs this op and its pipe tiles "
       "live in MemorySpace.Vec; tile.move it there first"},
      {"tile.tpush_to_aic", {Tile({4, 16, 16}, F32, MemorySpace::Vec)}, {},
       "tile.tpush_to_aic: argument 'tile' (position 0) must be a 2-D Tile"},
      {"tile.tpop_from_aic", {List({16, 64, 2})}, PopKwargs(F32),
       "tile.tpop_from_aic: argument 'shape' has 3 entries, expected 2 (one per dim)"},
      {"tile.tpop_from_aic", {ListOf({Int(16), Dim("N")})}, PopKwargs(F32),
       "tile.tpop_from_aic: argument 'shape' [16, N] has a dynamic dim N at index 1"},
      {"tile.tpop_from_aiv", {List({32, 63})}, PopKwargs(F32, 2),
       "tile.tpop_from_aiv: split=2 (left_right) halves the popped tile's 63 columns between the two AIV lanes, "
       "which needs an even count; pad the popped tile to 64 columns and narrow its valid shape"},
      {"tile.tpop_from_aiv", {List({32, 64})}, {},
       "tile.tpop_from_aiv is missing the required keyword argument 'dtype'"},
      {"system.tfree_to_aic", {Tile({16, 64}, F32, MemorySpace::Mat)}, {},
       "system.tfree_to_aic: argument 'tile' is in MemorySpace.Mat, but an AIV lane runs this op"},
      {"system.tfree_to_aiv", {Tensor({16, 64})}, {},
       "system.tfree_to_aiv: argument 'tile' (position 0) must be a Tile"},
      {"system.aic_initialize_pipe", {}, InitKwargs(4, 1024, 2),
       "system.aic_initialize_pipe: keyword 'dir_mask' must be 1 (C2V), 2 (V2C) or 3 (both), got 4"},
      {"system.aic_initialize_pipe", {}, InitKwargs(1, 0, 2),
       "system.aic_initialize_pipe: keyword 'slot_size' must be a positive byte count (at least the largest tile "
       "that crosses), got 0"},
      {"system.aiv_initialize_pipe", {}, InitKwargs(3, 1024, 6),
       "system.aiv_initialize_pipe: slot_num=6 exceeds the hardware's 4 slots per direction with dir_mask=3 (8 flags "
       "per direction and Vector-Cube pair, shared when both directions are active); use slot_num <= 4, or 0 for the "
       "hardware's depth"},
      {"system.aiv_initialize_pipe", {}, InitKwargs(1, 1024, -1),
       "system.aiv_initialize_pipe: keyword 'slot_num' must be >= 0 (0 takes the hardware's depth), got -1"},
      {"system.aiv_initialize_pipe", {}, {{"dir_mask", int64_t{1}}},
       "system.aiv_initialize_pipe is missing the required keyword argument 'slot_size'"},
      {"tile.aiv_shard", {Tile({33, 64}, F32, MemorySpace::Acc)}, Split(1),
       "tile.aiv_shard: split=1 (up_down) halves the sharded tile's 33 rows between the two AIV lanes, which needs "
       "an even count; pad the sharded tile to 34 rows and narrow its valid shape"},
      {"tile.aic_gather", {Tile({16, 64}, F32, MemorySpace::Vec)}, Split(5),
       "tile.aic_gather: keyword 'split' must be one of 0=none, 1=up_down, 2=left_right, got 5"},
      {"system.reserve_buffer", {}, {{"name", std::string("c2v")}, {"size", int64_t{0}}},
       "system.reserve_buffer: keyword 'size' must be a positive byte count, got 0"},
      {"system.import_peer_buffer", {}, {{"name", std::string("c2v")}, {"peer", std::string("")}},
       "system.import_peer_buffer: keyword 'peer' is empty; name the peer kernel"},
  };
}

}  // namespace pypto::ops::testing
