// tile.* cases: one successful deduction with its exact result type (memory
// space included) and at least one error with its message for every op.
#include "op_test_util.h"

namespace pypto::ops::testing {

namespace {
const DataType F32 = DataType::FP32;
const DataType F16 = DataType::FP16;
const DataType I32 = DataType::INT32;
const DataType I16 = DataType::INT16;
constexpr MemorySpace kVec = MemorySpace::Vec;
constexpr MemorySpace kMat = MemorySpace::Mat;
constexpr MemorySpace kAcc = MemorySpace::Acc;

const std::vector<std::string> kBroadcastOps = {"tile.add",     "tile.sub",     "tile.mul", "tile.div",
                                                "tile.maximum", "tile.minimum", "tile.fmod"};
const std::vector<std::string> kScalarOps = {"tile.adds",     "tile.subs",     "tile.muls", "tile.divs",
                                             "tile.maximums", "tile.minimums", "tile.fmods"};
const std::vector<std::string> kBitwiseOps = {"tile.and", "tile.or"};
const std::vector<std::string> kShiftOps = {"tile.shl", "tile.shr"};
const std::vector<std::string> kBitwiseScalarOps = {"tile.ands", "tile.ors"};
const std::vector<std::string> kShiftScalarOps = {"tile.shls", "tile.shrs"};
const std::vector<std::string> kFloatUnaryOps = {"tile.exp",   "tile.log", "tile.sqrt", "tile.rsqrt",
                                                 "tile.recip", "tile.sin", "tile.cos"};
const std::vector<std::string> kSignedUnaryOps = {"tile.neg", "tile.abs", "tile.relu"};
const std::vector<std::string> kRowReductions = {"tile.row_sum", "tile.row_max", "tile.row_min", "tile.row_prod"};
const std::vector<std::string> kColReductions = {"tile.col_sum", "tile.col_max", "tile.col_min", "tile.col_prod"};
const std::vector<std::string> kRowExpands = {"tile.row_expand",     "tile.row_expand_add",   "tile.row_expand_sub",
                                              "tile.row_expand_mul", "tile.row_expand_div",   "tile.row_expand_max",
                                              "tile.row_expand_min", "tile.row_expand_expdif"};
const std::vector<std::string> kColExpands = {"tile.col_expand",     "tile.col_expand_add",   "tile.col_expand_sub",
                                              "tile.col_expand_mul", "tile.col_expand_div",   "tile.col_expand_max",
                                              "tile.col_expand_min", "tile.col_expand_expdif"};
const std::vector<std::string> kBlockIdentity = {"tile.get_block_idx", "tile.get_block_num", "tile.get_subblock_idx"};
}  // namespace

std::vector<SuccessCase> TileSuccessCases() {
  ExprPtr n = Dim("N");
  ExprPtr rows = Dim("rows");
  std::vector<SuccessCase> cases = {
      {"tile.load",
       {Tensor({128, 128}), List({0, 64}), List({64, 64})},
       {{"target_memory", Mem(kVec)}},
       "Tile[[64, 64], FP32, Vec]"},
      {"tile.load",
       {Tensor({128, 128}, F16), List({0, 0}), List({64, 64})},
       {{"target_memory", Mem(kMat)}},
       "Tile[[64, 64], FP16, Mat]"},
      {"tile.load",
       {Tensor({128, 128}), List({0, 0}), List({64, 64}), ListOf({rows, Int(64)})},
       {},
       "Tile[[64, 64], FP32, valid=[rows, 64]]"},
      // 40 valid rows, window from row 32: 8 rows are real data.
      {"tile.load",
       {Tensor({128, 128}, F32, {40, 128}), List({32, 0}), List({64, 64})},
       {},
       "Tile[[64, 64], FP32, valid=[8, 64]]"},
      {"tile.load",
       {DynTensor(Shape{n, Int(128)}), ListOf({Int(0), Int(0)}), List({64, 128}), ListOf({n, Int(128)})},
       {},
       "Tile[[64, 128], FP32, valid=[N, 128]]"},
      {"tile.store", {Tile({64, 64}, F32, kVec), List({64, 0}), Tensor({128, 64})}, {}, "Tensor[[128, 64], FP32]"},
      {"tile.store",
       {Tile({64, 64}, F32, kAcc), List({0, 0}), Tensor({128, 64}, F16)},
       {{"atomic", int64_t{1}}},
       "Tensor[[128, 64], FP16]"},
      {"tile.store",
       {Tile({64, 64}, F32, kVec, {20, 64}), List({0, 0}), Tensor({128, 64}, F32, {0, 64})},
       {},
       "Tensor[[128, 64], FP32, valid=[20, 64]]"},
      {"tile.move",
       {Tile({64, 64}, F16, kMat, {32, 64})},
       {{"target_memory", Mem(MemorySpace::Left)}},
       "Tile[[64, 64], FP16, Left, valid=[32, 64]]"},
      {"tile.create", {List({64, 64})}, {{"dtype", F32}, {"target_memory", Mem(kVec)}}, "Tile[[64, 64], FP32, Vec]"},
      {"tile.create", {List({64, 1})}, {{"dtype", F16}}, "Tile[[64, 1], FP16]"},
      {"tile.full", {List({16, 16}), Float(0.0)}, {{"dtype", F32}}, "Tile[[16, 16], FP32, Vec]"},
      {"tile.alloc", {Int(16384)}, {{"memory_space", Mem(kVec)}}, "Ptr[Vec]"},
      {"tile.slice", {Tile({64, 64}, F32, kMat), List({32, 64}), List({32, 0})}, {}, "Tile[[32, 64], FP32, Mat]"},
      {"tile.slice",
       {Tile({64, 64}, F32, kVec, {40, 64}), List({32, 64}), List({16, 0})},
       {},
       "Tile[[32, 64], FP32, Vec, valid=[24, 64]]"},
      {"tile.extract",
       {Tile({128, 64}, F16, kMat), Int(64), Int(0), List({64, 64})},
       {{"target_memory", Mem(MemorySpace::Left)}},
       "Tile[[64, 64], FP16, Left]"},
      {"tile.assemble",
       {Tile({64, 64}, F32, kVec, {0, 64}), Tile({16, 64}, F32, kVec), List({0, 0})},
       {},
       "Tile[[64, 64], FP32, Vec, valid=[16, 64]]"},
      {"tile.reshape", {Tile({64, 64}, F32, kVec), List({4096, 1})}, {}, "Tile[[4096, 1], FP32, Vec]"},
      {"tile.transpose", {Tile({64, 32}, F32, kVec), Int(0), Int(1)}, {}, "Tile[[32, 64], FP32, Vec]"},
      {"tile.transpose", {Tile({64, 32}, F32, kVec), Int(1), Int(0), Tile({64, 64})}, {}, "Tile[[32, 64], FP32, Vec]"},
      {"tile.concat", {Tile({64, 16}), Tile({64, 16})}, {}, "Tile[[64, 32], FP32, Vec]"},
      {"tile.set_validshape",
       {Tile({64, 64}, F32, kVec), rows, Int(64)},
       {},
       "Tile[[64, 64], FP32, Vec, valid=[rows, 64]]"},
      {"tile.read", {Tile({64, 64}, I32, kVec), List({0, 1})}, {}, "Scalar[INT32]"},
      {"tile.write", {Tile({64, 64}, F32, kVec), List({0, 1}), Float(1.0)}, {}, "Tile[[64, 64], FP32, Vec]"},
      {"tile.fillpad",
       {Tile({64, 64}, F32, kVec, {40, 64})},
       {{"pad_value", EnumAttr::Of(PadValue::Max)}},
       "Tile[[64, 64], FP32, Vec]"},
      {"tile.cast",
       {Tile({64, 64}, F32, kVec, {40, 64})},
       {{"target_type", F16}},
       "Tile[[64, 64], FP16, Vec, valid=[40, 64]]"},
      {"tile.rem", {Tile({64, 64}, I32), Tile({64, 64}, I32), Tile({64, 64}, I32)}, {}, "Tile[[64, 64], INT32, Vec]"},
      {"tile.rems", {Tile({64, 64}, I32), Int(7), Tile({64, 64}, I32)}, {}, "Tile[[64, 64], INT32, Vec]"},
      {"tile.addc", {Tile({64, 64}), Tile({64, 1}), Tile({64, 64}, F16)}, {}, "Tile[[64, 64], FP32, Vec]"},
      {"tile.subc", {Tile({64, 64}, F16), Tile({64, 64}, F16), Tile({64, 64}, F16)}, {}, "Tile[[64, 64], FP16, Vec]"},
      {"tile.lrelu", {Tile({64, 64}, F16), Float(0.1)}, {}, "Tile[[64, 64], FP16, Vec]"},
      {"tile.xor", {Tile({8, 16}, I16), Tile({8, 16}, I16), Tile({8, 16}, I16)}, {}, "Tile[[8, 16], INT16, Vec]"},
      {"tile.xors", {Tile({8, 16}, I16), Int(1), Tile({8, 16}, I16)}, {}, "Tile[[8, 16], INT16, Vec]"},
      {"tile.not", {Tile({8, 16}, DataType::UINT16)}, {}, "Tile[[8, 16], UINT16, Vec]"},
      {"tile.rsqrt", {Tile({8, 16}), Tile({8, 16})}, {}, "Tile[[8, 16], FP32, Vec]"},
      // A packed mask: one bit per element, rows padded to 32 bytes.
      {"tile.cmp", {Tile({64, 64}), Tile({1, 64})}, {{"cmp_type", int64_t{2}}},
       "Tile[[64, 32], UINT8, Vec, valid=[64, 8]]"},
      {"tile.cmps", {Tile({64, 320}, F16), Float(0.0)}, {}, "Tile[[64, 64], UINT8, Vec, valid=[64, 40]]"},
      {"tile.cmps", {Tile({64, 64}, F32, kVec, {40, 13}), Float(0.0)}, {}, "Tile[[64, 32], UINT8, Vec, valid=[40, 2]]"},
      {"tile.sel", {Tile({64, 32}, DataType::UINT8), Tile({64, 64}), Tile({64, 64})}, {}, "Tile[[64, 64], FP32, Vec]"},
      {"tile.sel",
       {Tile({64, 32}, DataType::UINT8, kVec, {40, 8}), Tile({64, 64}, F32, kVec, {40, 64}), Tile({1, 64}),
        Tile({1, 32}, DataType::UINT8)},
       {},
       "Tile[[64, 64], FP32, Vec, valid=[40, 64]]"},
      {"tile.row_argmax", {Tile({64, 32}, F16), Tile({64, 32}, F16)}, {}, "Tile[[64, 1], INT32, Vec]"},
      {"tile.row_argmin", {Tile({64, 32}, F16), Tile({64, 32}, F16)}, {}, "Tile[[64, 1], INT32, Vec]"},
      {"tile.col_argmax", {Tile({64, 32}, F16), Tile({64, 32}, F16)}, {}, "Tile[[1, 32], INT32, Vec]"},
      {"tile.col_argmin", {Tile({64, 32}, F16), Tile({64, 32}, F16)}, {}, "Tile[[1, 32], INT32, Vec]"},
      {"tile.col_sum", {Tile({64, 32}), Tile({64, 32})}, {}, "Tile[[1, 32], FP32, Vec]"},
      {"tile.expands", {Tile({64, 32}, I32), Int(0)}, {}, "Tile[[64, 32], INT32, Vec]"},
      {"tile.matmul",
       {Tile({64, 128}, F16, MemorySpace::Left), Tile({128, 32}, F16, MemorySpace::Right)},
       {},
       "Tile[[64, 32], FP32, Acc]"},
      {"tile.matmul",
       {Tile({64, 128}, DataType::INT8), Tile({128, 32}, DataType::INT8, kVec, {128, 20})},
       {{"out_dtype", I32}},
       "Tile[[64, 32], INT32, Acc, valid=[64, 20]]"},
      {"tile.matmul_acc",
       {Tile({64, 32}, F32, kAcc), Tile({64, 128}, F16), Tile({128, 32}, F16), Bool(false)},
       {},
       "Tile[[64, 32], FP32, Acc]"},
      {"tile.matmul_bias",
       {Tile({64, 128}, F16), Tile({128, 32}, F16), Tile({1, 32}, F32, MemorySpace::Bias)},
       {},
       "Tile[[64, 32], FP32, Acc]"},
  };
  for (const auto& op : kBroadcastOps) {
    cases.push_back({op,
                     {Tile({64, 64}, F16, kVec, {40, 64}), Tile({1, 64}, F16)},
                     {},
                     "Tile[[64, 64], FP16, Vec, valid=[40, 64]]"});
  }
  for (const auto& op : kScalarOps) {
    cases.push_back({op, {Tile({64, 64}, F16), Float(2.0)}, {}, "Tile[[64, 64], FP16, Vec]"});
  }
  for (const auto& op : kBitwiseOps)
    cases.push_back({op, {Tile({8, 16}, I16), Tile({8, 16}, I16)}, {}, "Tile[[8, 16], INT16, Vec]"});
  for (const auto& op : kShiftOps)
    cases.push_back({op, {Tile({8, 16}, I16), Tile({8, 16}, I32)}, {}, "Tile[[8, 16], INT16, Vec]"});
  for (const auto& op : kBitwiseScalarOps)
    cases.push_back({op, {Tile({8, 16}, I32), Int(255)}, {}, "Tile[[8, 16], INT32, Vec]"});
  for (const auto& op : kShiftScalarOps)
    cases.push_back({op, {Tile({8, 16}, I32), Int(2)}, {}, "Tile[[8, 16], INT32, Vec]"});
  for (const auto& op : kFloatUnaryOps)
    cases.push_back({op, {Tile({8, 16}, F16, kVec)}, {}, "Tile[[8, 16], FP16, Vec]"});
  for (const auto& op : kSignedUnaryOps) cases.push_back({op, {Tile({8, 16}, I32)}, {}, "Tile[[8, 16], INT32, Vec]"});
  for (const auto& op : kRowReductions) {
    cases.push_back(
        {op, {Tile({64, 32}, F32, kVec, {40, 32}), Tile({64, 64})}, {}, "Tile[[64, 1], FP32, Vec, valid=[40, 1]]"});
  }
  for (const auto& op : kColReductions) cases.push_back({op, {Tile({64, 32})}, {}, "Tile[[1, 32], FP32, Vec]"});
  for (const auto& op : kRowExpands) {
    cases.push_back({op, {Tile({64, 32}, F16), Tile({64, 1}, F16)}, {}, "Tile[[64, 32], FP16, Vec]"});
  }
  for (const auto& op : kColExpands) {
    cases.push_back({op, {Tile({64, 32}, F16), Tile({1, 32}, F16)}, {}, "Tile[[64, 32], FP16, Vec]"});
  }
  for (const auto& op : kBlockIdentity) cases.push_back({op, {}, {}, "Scalar[INDEX]"});
  return cases;
}

std::vector<ErrorCase> TileErrorCases() {
  std::vector<ErrorCase> cases = {
      {"tile.load",
       {Tensor({128, 128}), List({0, 0}), List({64, 64})},
       {{"target_memory", Mem(MemorySpace::Left)}},
       "tile.load: target_memory=MemorySpace.Left is not a load destination; load to MemorySpace.Mat, then "
       "tile.move(t, target_memory=MemorySpace.Left)"},
      {"tile.load",
       {Tensor({128, 128}), List({0, 0}), List({64, 64})},
       {{"target_memory", Mem(MemorySpace::Right)}},
       "tile.load: target_memory=MemorySpace.Right is not a load destination"},
      {"tile.load",
       {Tensor({128, 128}), List({0, 0}), List({64, 64})},
       {{"target_memory", Mem(kAcc)}},
       "tile.load: target_memory must be MemorySpace.Vec or MemorySpace.Mat, got MemorySpace.Acc"},
      {"tile.load",
       {Tensor({128, 128}), List({96, 0}), List({64, 64})},
       {},
       "tile.load: valid region [64, 64] at offsets [96, 0] overruns tensor [128, 128] at dim 0 (96 + 64 > 128)"},
      {"tile.load",
       {Tensor({128, 128}), List({0, 0, 0}), List({64, 64})},
       {},
       "tile.load: argument 'offsets' has 3 entries, expected 2 (one per dim)"},
      {"tile.load",
       {Tensor({128, 128}), List({0, 0}), List({64, 64}), List({65, 64})},
       {},
       "tile.load: argument 'valid_shape' [65, 64] exceeds the shape [64, 64] at dim 0 (65 > 64)"},
      {"tile.store",
       {Tile({64, 64}, F32, kMat), List({0, 0}), Tensor({128, 64})},
       {},
       "tile.store: argument 'tile' is in MemorySpace.Mat; tile.store writes from MemorySpace.Vec or "
       "MemorySpace.Acc, tile.move it there first"},
      {"tile.store",
       {Tile({64, 64}, F32, kVec), List({96, 0}), Tensor({128, 64})},
       {},
       "tile.store: tile [64, 64] at offsets [96, 0] overruns tensor [128, 64] at dim 0 (96 + 64 > 128)"},
      {"tile.store",
       {Tile({64, 64}, F32, kVec), List({0, 0}), Tensor({128, 64}, F16)},
       {},
       "tile.store: argument 'tile' has dtype FP32 but the destination is FP16; cast it first"},
      {"tile.store",
       {Tile({64}, F32, kVec), List({0}), Tensor({128, 64})},
       {},
       "tile.store: argument 'tile' (position 0) must be a 2-D Tile, got Tile[[64], FP32, Vec]"},
      {"tile.move", {Tile({64, 64})}, {}, "tile.move is missing the required keyword argument 'target_memory'"},
      {"tile.move",
       {Tile({64, 64})},
       {{"target_memory", Mem(MemorySpace::DDR)}},
       "tile.move: target_memory=MemorySpace.DDR is not on chip; use tile.store"},
      {"tile.create",
       {ListOf({Dim("N"), Int(64)})},
       {{"dtype", F32}},
       "tile.create: argument 'shape' [N, 64] has a dynamic dim N at index 0; on-chip buffers need static shapes"},
      {"tile.create",
       {List({64, 64})},
       {{"dtype", F32}, {"target_memory", Mem(MemorySpace::DDR)}},
       "tile.create: target_memory=MemorySpace.DDR is not on chip; use tensor.create for GM tensors"},
      {"tile.full",
       {List({16, 16}), Float(0.5)},
       {{"dtype", I32}},
       "tile.full: argument 'value' (position 1) must be an integer or boolean scalar that fits dtype INT32"},
      {"tile.alloc", {Int(0)}, {{"memory_space", Mem(kVec)}}, "tile.alloc: size must be positive, got 0"},
      {"tile.alloc", {Int(64)}, {}, "tile.alloc is missing the required keyword argument 'memory_space'"},
      {"tile.slice",
       {Tile({64, 64}), List({32, 64}), List({48, 0})},
       {},
       "tile.slice: window [32, 64] at offsets [48, 0] overruns tile [64, 64] at dim 0 (48 + 32 > 64)"},
      {"tile.extract",
       {Tile({128, 64}, F16, kMat), Int(0), Int(0), List({64, 64})},
       {},
       "tile.extract is missing the required keyword argument 'target_memory'"},
      {"tile.extract",
       {Tile({128, 64}, F16, kMat), Int(96), Int(0), List({64, 64})},
       {{"target_memory", Mem(MemorySpace::Left)}},
       "tile.extract: window [64, 64] at offsets [96, 0] overruns tile [128, 64] at dim 0 (96 + 64 > 128)"},
      {"tile.assemble",
       {Tile({64, 64}), Tile({16, 64}, F16), List({0, 0})},
       {},
       "tile.assemble: argument 'source' has dtype FP16 but the destination is FP32; cast it first"},
      {"tile.reshape",
       {Tile({64, 64}), List({64, 32})},
       {},
       "tile.reshape: cannot reshape [64, 64] (4096 elements) to [64, 32] (2048 elements)"},
      {"tile.reshape",
       {Tile({64, 64}, F32, kVec, {10, 64}), List({4096})},
       {},
       "tile.reshape: argument 'input' is valid only on [10, 64] of [64, 64]; fill the rest with tile.fillpad before "
       "reshaping"},
      {"tile.transpose",
       {Tile({64, 32}), Int(0), Int(1), Tile({64, 64}, F16)},
       {},
       "tile.transpose: scratch 'tmp' must have the input's dtype FP32"},
      {"tile.concat",
       {Tile({64, 16}), Tile({32, 16})},
       {},
       "tile.concat: argument 'src1' [32, 16] does not match [64, 16] outside the last axis (dim 0: 64 vs 32)"},
      {"tile.set_validshape",
       {Tile({64, 64}), Int(65), Int(64)},
       {},
       "tile.set_validshape: argument 'valid_rows' is 65, outside 0..64 of the tile [64, 64]"},
      {"tile.read", {Tile({64, 64}), List({0, 64})}, {}, "tile.read: index 64 is out of range for dim 1 of [64, 64]"},
      {"tile.write",
       {Tile({64, 64}, I32), List({0, 0}), Float(1.0)},
       {},
       "tile.write: argument 'value' (position 2) must be an integer or boolean scalar that fits the INT32 Tile"},
      {"tile.fillpad",
       {Tile({64, 64})},
       {{"pad_value", EnumAttr::Of(PadValue::Null)}},
       "tile.fillpad: pad_value must be zero, max or min"},
      {"tile.cast",
       {Tile({64, 64})},
       {{"target_type", DataType::TASK_ID}},
       "tile.cast: target_type TASK_ID is not an element type"},
      {"tile.div",
       {Tile({8, 8}, I32), Tile({8, 8}, I32)},
       {{"high_precision", true}},
       "tile.div: high_precision=True needs a floating-point result, got INT32"},
      {"tile.rem",
       {Tile({64, 64}, I32), Tile({64, 64}, I32), Tile({64, 64}, F32)},
       {},
       "tile.rem: scratch 'tmp' must have dtype INT32, got FP32"},
      {"tile.rems",
       {Tile({64, 64}, I32), Float(1.5), Tile({64, 64}, I32)},
       {},
       "tile.rems: argument 'rhs' (position 1) must be an integer or boolean scalar that fits the INT32 Tile without "
       "a cast, got Scalar[FP32]"},
      {"tile.addc",
       {Tile({64, 64}), Tile({64, 64}), Tile({64, 1})},
       {},
       "tile.addc: argument 'rhs2' has shape [64, 1] but lhs and rhs give [64, 64]"},
      {"tile.subc",
       {Tile({64, 64}), Tile({32, 64}), Tile({64, 64})},
       {},
       "tile.subc: shapes [64, 64] and [32, 64] do not broadcast at dim 0 (64 vs 32)"},
      {"tile.lrelu",
       {Tile({64, 64}, I32), Float(0.1)},
       {},
       "tile.lrelu: argument 'tile' (position 0) must be a Tile of a floating-point dtype (cast it first)"},
      {"tile.xor",
       {Tile({8, 16}, I16), Tile({8, 16}, I16), Tile({8, 16}, I32)},
       {},
       "tile.xor: scratch 'tmp' must have dtype INT16, got INT32"},
      {"tile.xors",
       {Tile({8, 16}, I16), Float(1.0), Tile({8, 16}, I16)},
       {},
       "tile.xors: argument 'rhs' (position 1) must be an integer scalar, got Scalar[FP32]"},
      {"tile.not", {Tile({8, 16})}, {}, "tile.not: argument 'tile' (position 0) must be a Tile of an integer dtype"},
      {"tile.rsqrt",
       {Tile({8, 16}), Tile({8, 16}, F16)},
       {},
       "tile.rsqrt: scratch 'tmp' must have dtype FP32, got FP16"},
      {"tile.cmp",
       {Tile({64, 64}), Float(0.0)},
       {},
       "tile.cmp: argument 'rhs' (position 1) must be a Tile, got Scalar[FP32]"},
      {"tile.cmps",
       {Tile({64, 64}, I32), Float(0.5)},
       {},
       "tile.cmps: argument 'rhs' (position 1) must be an integer or boolean scalar that fits the INT32 Tile"},
      {"tile.cmps",
       {Tile({64, 64}), Float(0.5)},
       {{"cmp_type", int64_t{-1}}},
       "tile.cmps: keyword 'cmp_type' must be one of 0=eq, 1=ne, 2=lt, 3=le, 4=gt, 5=ge, got -1"},
      {"tile.sel",
       {Tile({64, 64}), Tile({64, 64}), Tile({64, 64})},
       {},
       "tile.sel: argument 'mask' (position 0) must be a UINT8 packed mask Tile (from tile.cmp / tile.cmps), got "
       "Tile[[64, 64], FP32]"},
      {"tile.sel",
       {Tile({64, 64}, DataType::UINT8), Tile({64, 64}), Tile({64, 64})},
       {},
       "tile.sel: argument 'mask' has shape [64, 64], but values of shape [64, 64] take a packed mask of shape "
       "[64, 32] (one bit per element, rows padded to 32 bytes): compare tiles of the selected shape"},
      {"tile.sel",
       {Tile({64, 32}, DataType::UINT8), Tile({64, 64}), Tile({64, 64}, F16)},
       {},
       "tile.sel: lhs and rhs must have one dtype, got FP32 and FP16"},
      {"tile.row_argmax",
       {Tile({64, 32}, F16), Tile({64, 64}, F16)},
       {},
       "tile.row_argmax: scratch 'tmp_tile' [64, 64] must match the input [64, 32] at dim 1 (64 vs 32)"},
      {"tile.row_argmin",
       {Tile({64, 32}, F16), Tile({64, 32})},
       {},
       "tile.row_argmin: scratch 'tmp_tile' must have the input's dtype FP16, got FP32"},
      {"tile.col_argmax",
       {Tile({64, 32}), Tile({32, 32})},
       {},
       "tile.col_argmax: scratch 'tmp_tile' [32, 32] must cover the input [64, 32] at dim 0 (32 vs 64)"},
      {"tile.col_argmin",
       {Tile({64}), Tile({64})},
       {},
       "tile.col_argmin: argument 'tile' (position 0) must be a Tile of rank >= 2, got Tile[[64], FP32]"},
      {"tile.expands",
       {Tile({64, 32}, I32), Float(1.0)},
       {},
       "tile.expands: argument 'scalar' (position 1) must be an integer or boolean scalar that fits the INT32 Tile"},
      {"tile.matmul",
       {Tile({64, 128}, F16), Tile({64, 32}, F16)},
       {},
       "tile.matmul: inner dimensions differ: 'lhs' [64, 128] has K=128 but 'rhs' [64, 32] has K=64"},
      {"tile.matmul",
       {Tile({64, 128}, F16), Tile({128, 32}, F32)},
       {},
       "tile.matmul: lhs and rhs must have one dtype, got FP16 and FP32"},
      {"tile.matmul",
       {Tile({64, 128}, F16), Tile({128, 32}, F16)},
       {{"out_dtype", F16}},
       "tile.matmul: out_dtype FP16 is not possible for FP16 operands: the Acc buffer holds FP32; cast after storing "
       "or moving the result"},
      {"tile.matmul",
       {Tile({2, 64, 128}, F16), Tile({128, 32}, F16)},
       {},
       "tile.matmul: argument 'lhs' (position 0) must be a 2-D Tile, got Tile[[2, 64, 128], FP16]"},
      {"tile.matmul_acc",
       {Tile({64, 32}, F16, kAcc), Tile({64, 128}, F16), Tile({128, 32}, F16)},
       {},
       "tile.matmul_acc: argument 'acc' must be FP32 to accumulate FP16 products, got FP16"},
      {"tile.matmul_acc",
       {Tile({64, 16}, F32, kAcc), Tile({64, 128}, F16), Tile({128, 32}, F16)},
       {},
       "tile.matmul_acc: argument 'acc' has shape [64, 16] but lhs @ rhs has shape [64, 32]"},
      {"tile.matmul_bias",
       {Tile({64, 128}, F16), Tile({128, 32}, F16), Tile({64, 32}, F32)},
       {},
       "tile.matmul_bias: argument 'bias' must have shape [1, 32], got [64, 32]"},
      {"tile.matmul_bias",
       {Tile({64, 128}, F16), Tile({128, 32}, F16), Tile({1, 32}, F16)},
       {},
       "tile.matmul_bias: argument 'bias' must be FP32 (the accumulator dtype), got FP16"},
  };
  for (const auto& op : kBroadcastOps) {
    cases.push_back({op,
                     {Tile({64, 32}), Tile({16, 32})},
                     {},
                     op + ": shapes [64, 32] and [16, 32] do not broadcast at dim 0 (64 vs 16)"});
    cases.push_back({op,
                     {Tensor({64, 32}), Tile({64, 32})},
                     {},
                     op + ": argument 'lhs' (position 0) must be a Tile, got Tensor[[64, 32], FP32]"});
  }
  for (const auto& op : kScalarOps) {
    cases.push_back({op,
                     {Tile({64, 64}, I32), Float(2.0)},
                     {},
                     op + ": argument 'rhs' (position 1) must be an integer or boolean scalar that fits the INT32 Tile "
                          "without a cast, got Scalar[FP32]"});
  }
  for (const auto& op : kBitwiseOps) {
    cases.push_back({op, {Tile({8, 16}, I16), Tile({8, 1}, I16)}, {}, op + ": operands must have one shape"});
  }
  for (const auto& op : kShiftOps) {
    cases.push_back({op,
                     {Tile({8, 16}), Tile({8, 16}, I32)},
                     {},
                     op + ": argument 'lhs' (position 0) must be a Tile of an integer dtype, got Tile[[8, 16], FP32]"});
  }
  for (const auto& op : kBitwiseScalarOps) {
    cases.push_back({op,
                     {Tile({8, 16}, I32), Scalar(F32)},
                     {},
                     op + ": argument 'rhs' (position 1) must be an integer scalar, got Scalar[FP32]"});
  }
  for (const auto& op : kShiftScalarOps) {
    cases.push_back({op, {Tile({8, 16}, I32), Int(-2)}, {}, op + ": shift count must be non-negative, got -2"});
  }
  for (const auto& op : kFloatUnaryOps) {
    cases.push_back({op,
                     {Tile({8, 16}, I32)},
                     {},
                     op +
                         ": argument 'tile' (position 0) must be a Tile of a floating-point dtype (cast it first), got "
                         "Tile[[8, 16], INT32]"});
  }
  for (const auto& op : kSignedUnaryOps) {
    cases.push_back({op,
                     {Tile({8, 16}, DataType::UINT32)},
                     {},
                     op + ": argument 'tile' (position 0) must be a Tile of a signed integer or floating-point dtype"});
  }
  for (const auto& op : kRowReductions) {
    cases.push_back({op,
                     {Tile({64, 32}), Tile({32, 32})},
                     {},
                     op + ": scratch 'tmp_tile' [32, 32] must cover the input [64, 32] at dim 0 (32 vs 64)"});
    cases.push_back({op, {Tile({64, 32})}, {}, op + " takes 2 positional argument(s) but 1 were given"});
  }
  for (const auto& op : kColReductions) {
    cases.push_back({op,
                     {Tile({64})},
                     {},
                     op + ": argument 'tile' (position 0) must be a Tile of rank >= 2, got Tile[[64], FP32]"});
  }
  for (const auto& op : kRowExpands) {
    cases.push_back(
        {op,
         {Tile({64, 32}), Tile({32, 1})},
         {},
         op + ": argument 'row_vec' must have shape [64, 1] to expand along the rows of [64, 32], got [32, 1]"});
  }
  for (const auto& op : kColExpands) {
    cases.push_back({op, {Tile({64, 32}), Tile({1, 32}, F16)}, {}, op + ": argument 'col_vec' has dtype FP16"});
  }
  for (const auto& op : kBlockIdentity) {
    cases.push_back({op, {Int(0)}, {}, op + " takes 0 positional argument(s) but 1 were given"});
  }
  return cases;
}

}  // namespace pypto::ops::testing
