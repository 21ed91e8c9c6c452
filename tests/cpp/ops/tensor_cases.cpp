// tensor.* cases: one successful deduction with its exact result type and at
// least one error with its message for every op.
#include "op_test_util.h"

namespace pypto::ops::testing {

namespace {
const DataType F32 = DataType::FP32;
const DataType F16 = DataType::FP16;
const DataType I32 = DataType::INT32;
const DataType I16 = DataType::INT16;

const std::vector<std::string> kBroadcastOps = {"tensor.add",  "tensor.sub",     "tensor.mul",    "tensor.div",
                                                "tensor.fmod", "tensor.maximum", "tensor.minimum"};
const std::vector<std::string> kScalarOps = {"tensor.adds", "tensor.subs", "tensor.muls", "tensor.divs",
                                             "tensor.fmods"};
const std::vector<std::string> kBitwiseOps = {"tensor.and", "tensor.or", "tensor.xor"};
const std::vector<std::string> kShiftOps = {"tensor.shl", "tensor.shr"};
const std::vector<std::string> kBitwiseScalarOps = {"tensor.ands", "tensor.ors", "tensor.xors"};
const std::vector<std::string> kShiftScalarOps = {"tensor.shls", "tensor.shrs"};
const std::vector<std::string> kFloatUnaryOps = {"tensor.exp",   "tensor.log", "tensor.sqrt", "tensor.rsqrt",
                                                 "tensor.recip", "tensor.sin", "tensor.cos"};
const std::vector<std::string> kSignedUnaryOps = {"tensor.neg", "tensor.abs", "tensor.relu"};
const std::vector<std::string> kRowReductions = {"tensor.row_sum", "tensor.row_max", "tensor.row_min",
                                                 "tensor.row_prod"};
const std::vector<std::string> kColReductions = {"tensor.col_sum", "tensor.col_max", "tensor.col_min",
                                                 "tensor.col_prod"};
const std::vector<std::string> kRowExpands = {
    "tensor.row_expand",     "tensor.row_expand_add", "tensor.row_expand_sub", "tensor.row_expand_mul",
    "tensor.row_expand_div", "tensor.row_expand_max", "tensor.row_expand_min", "tensor.row_expand_expdif"};
const std::vector<std::string> kColExpands = {
    "tensor.col_expand",     "tensor.col_expand_add", "tensor.col_expand_sub", "tensor.col_expand_mul",
    "tensor.col_expand_div", "tensor.col_expand_max", "tensor.col_expand_min", "tensor.col_expand_expdif"};
const std::vector<std::string> kBlockIdentity = {"tensor.get_block_idx", "tensor.get_block_num",
                                                 "tensor.get_subblock_idx"};
}  // namespace

std::vector<SuccessCase> TensorSuccessCases() {
  ExprPtr n = Dim("N");
  std::vector<SuccessCase> cases = {
      {"tensor.create", {List({64, 32})}, {{"dtype", F16}}, "Tensor[[64, 32], FP16]"},
      {"tensor.create",
       {ListOf({n, Int(32)})},
       {{"dtype", F32}, {"layout", EnumAttr::Of(TensorLayout::DN)}},
       "Tensor[[N, 32], FP32, DN]"},
      {"tensor.dump_tag", {Tensor({64, 32})}, {}, "Unknown"},
      {"tensor.full", {List({4, 8}), Float(1.0)}, {{"dtype", F16}}, "Tensor[[4, 8], FP16]"},
      {"tensor.full", {List({4, 8}), Int(3)}, {{"dtype", F32}}, "Tensor[[4, 8], FP32]"},
      {"tensor.slice", {Tensor({64, 32}), List({16, 32}), List({8, 0})}, {}, "Tensor[[16, 32], FP32]"},
      {"tensor.slice",
       {Tensor({64, 32}), List({16, 32}), List({8, 0}), List({10, 32})},
       {},
       "Tensor[[16, 32], FP32, valid=[10, 32]]"},
      // The window starts 8 rows before the end of the source's 40 valid rows.
      {"tensor.slice",
       {Tensor({64, 32}, F32, {40, 32}), List({16, 32}), List({32, 0})},
       {},
       "Tensor[[16, 32], FP32, valid=[8, 32]]"},
      {"tensor.slice",
       {Tensor({64, 32}, F32, {40, 32}), List({16, 32}), List({48, 0})},
       {},
       "Tensor[[16, 32], FP32, valid=[0, 32]]"},
      {"tensor.assemble", {Tensor({64, 32}), Tensor({16, 32}), List({16, 0})}, {}, "Tensor[[64, 32], FP32]"},
      {"tensor.assemble",
       {Tensor({64, 32}, F32, {16, 32}), Tensor({16, 32}), List({16, 0})},
       {},
       "Tensor[[64, 32], FP32, valid=[32, 32]]"},
      {"tensor.assemble",
       {Tensor({64, 32}, F16), Tile({16, 32}, F32, MemorySpace::Acc), List({0, 0})},
       {{"atomic", int64_t{1}}},
       "Tensor[[64, 32], FP16]"},
      {"tensor.reshape", {Tensor({64, 32}), List({2048})}, {}, "Tensor[[2048], FP32]"},
      {"tensor.reshape", {DynTensor(Shape{n, Int(32)}), ListOf({n, Int(4), Int(8)})}, {}, "Tensor[[N, 4, 8], FP32]"},
      {"tensor.reshape",
       {Tensor({64, 32}, F32, {16, 32}), List({32, 64}), List({8, 64})},
       {},
       "Tensor[[32, 64], FP32, valid=[8, 64]]"},
      {"tensor.transpose",
       {Tensor({64, 32}, F32, {16, 32}), Int(0), Int(1)},
       {},
       "Tensor[[32, 64], FP32, valid=[32, 16]]"},
      {"tensor.transpose", {Tensor({2, 64, 32}), Int(-1), Int(-2)}, {}, "Tensor[[2, 32, 64], FP32]"},
      {"tensor.concat", {Tensor({64, 16}), Tensor({64, 32})}, {}, "Tensor[[64, 48], FP32]"},
      {"tensor.concat",
       {Tensor({64, 16}), Tensor({64, 32}, F32, {64, 20})},
       {},
       "Tensor[[64, 48], FP32, valid=[64, 36]]"},
      {"tensor.read", {Tensor({64, 32}, F16), List({3, 4})}, {}, "Scalar[FP16]"},
      {"tensor.write", {Tensor({64, 32}), List({1, 2}), Float(2.0)}, {}, "Tensor[[64, 32], FP32]"},
      {"tensor.dim", {Tensor({64, 32}), Int(-1)}, {}, "Scalar[INDEX]"},
      {"tensor.fillpad",
       {Tensor({64, 32}, F32, {40, 32})},
       {{"pad_value", EnumAttr::Of(PadValue::Min)}},
       "Tensor[[64, 32], FP32]"},
      {"tensor.cast",
       {Tensor({64, 32}, F32, {40, 32})},
       {{"target_type", F16}},
       "Tensor[[64, 32], FP16, valid=[40, 32]]"},
      {"tensor.cast", {Tensor({64, 32})}, {{"target_type", I32}, {"mode", int64_t{3}}}, "Tensor[[64, 32], INT32]"},
      {"tensor.div", {Tensor({64, 32}), Tensor({64, 32})}, {{"high_precision", true}}, "Tensor[[64, 32], FP32]"},
      {"tensor.maximum", {Tensor({64, 32}, F16), Float(0.0)}, {}, "Tensor[[64, 32], FP16]"},
      {"tensor.minimum", {Tensor({64, 32}, I32), Float(0.5)}, {}, "Tensor[[64, 32], FP32]"},
      // 0 or 1 in the compared dtype, as upstream's tensor.cmp.
      {"tensor.cmp", {Tensor({64, 32}), Tensor({1, 32})}, {{"cmp_type", int64_t{4}}}, "Tensor[[64, 32], FP32]"},
      {"tensor.cmp", {Tensor({64, 32}, F32, {40, 32}), Float(0.0)}, {}, "Tensor[[64, 32], FP32, valid=[40, 32]]"},
      {"tensor.cmp", {Tensor({64, 32}, I32), Tensor({64, 32}, F16)}, {}, "Tensor[[64, 32], FP16]"},
      {"tensor.not", {Tensor({8, 8}, DataType::UINT16)}, {}, "Tensor[[8, 8], UINT16]"},
      {"tensor.row_argmax", {Tensor({64, 32}, F16)}, {}, "Tensor[[64, 1], INT32]"},
      {"tensor.row_argmin", {Tensor({64, 32}, F16)}, {}, "Tensor[[64, 1], INT32]"},
      {"tensor.col_argmax", {Tensor({64, 32}, F16)}, {}, "Tensor[[1, 32], INT32]"},
      {"tensor.col_argmin", {Tensor({64, 32}, F16)}, {}, "Tensor[[1, 32], INT32]"},
      {"tensor.expands", {Tensor({64, 32}, F16), Float(1.0)}, {}, "Tensor[[64, 32], FP16]"},
      {"tensor.matmul",
       {Tensor({64, 128}, F16), Tensor({128, 32}, F16)},
       {{"out_dtype", F32}},
       "Tensor[[64, 32], FP32]"},
      {"tensor.matmul", {Tensor({64, 128}, F16), Tensor({128, 32}, F16)}, {}, "Tensor[[64, 32], FP16]"},
      {"tensor.matmul",
       {Tensor({128, 64}), Tensor({32, 128})},
       {{"a_trans", true}, {"b_trans", true}},
       "Tensor[[64, 32], FP32]"},
      {"tensor.matmul",
       {Tensor({2, 64, 128}), Tensor({128, 32}, F32, {128, 20})},
       {},
       "Tensor[[2, 64, 32], FP32, valid=[2, 64, 20]]"},
      {"tensor.matmul_acc",
       {Tensor({64, 32}), Tensor({64, 128}, F16), Tensor({128, 32}, F16)},
       {},
       "Tensor[[64, 32], FP32]"},
      {"tensor.matmul_acc",
       {Tensor({64, 32}, I32), Tensor({128, 64}, DataType::INT8), Tensor({128, 32}, DataType::INT8), Bool(true)},
       {{"a_trans", true}},
       "Tensor[[64, 32], INT32]"},
  };
  for (const auto& op : kBroadcastOps) {
    cases.push_back({op, {Tensor({64, 32}), Tensor({64, 1}, F16)}, {}, "Tensor[[64, 32], FP32]"});
  }
  for (const auto& op : kScalarOps) {
    cases.push_back({op, {Tensor({64, 32}, F16, {30, 32}), Float(2.0)}, {}, "Tensor[[64, 32], FP16, valid=[30, 32]]"});
  }
  for (const auto& op : kBitwiseOps) {
    cases.push_back({op, {Tensor({8, 16}, I16), Tensor({8, 16}, I32)}, {}, "Tensor[[8, 16], INT32]"});
  }
  for (const auto& op : kShiftOps) {
    cases.push_back({op, {Tensor({8, 16}, I16), Tensor({8, 16}, I32)}, {}, "Tensor[[8, 16], INT16]"});
  }
  for (const auto& op : kBitwiseScalarOps)
    cases.push_back({op, {Tensor({8, 16}, I16), Int(3)}, {}, "Tensor[[8, 16], INT16]"});
  for (const auto& op : kShiftScalarOps)
    cases.push_back({op, {Tensor({8, 16}, I32), Int(3)}, {}, "Tensor[[8, 16], INT32]"});
  for (const auto& op : kFloatUnaryOps) cases.push_back({op, {Tensor({8, 16}, F16)}, {}, "Tensor[[8, 16], FP16]"});
  for (const auto& op : kSignedUnaryOps) cases.push_back({op, {Tensor({8, 16}, I32)}, {}, "Tensor[[8, 16], INT32]"});
  for (const auto& op : kRowReductions) {
    cases.push_back({op, {Tensor({64, 32}, F32, {40, 20})}, {}, "Tensor[[64, 1], FP32, valid=[40, 1]]"});
    cases.push_back({op, {Tensor({2, 64, 32})}, {}, "Tensor[[2, 64, 1], FP32]"});
  }
  for (const auto& op : kColReductions) {
    cases.push_back({op, {Tensor({64, 32}, F32, {40, 20})}, {}, "Tensor[[1, 32], FP32, valid=[1, 20]]"});
  }
  for (const auto& op : kRowExpands) {
    cases.push_back({op, {Tensor({64, 32}), Tensor({64, 1})}, {}, "Tensor[[64, 32], FP32]"});
  }
  for (const auto& op : kColExpands) {
    cases.push_back({op, {Tensor({64, 32}), Tensor({1, 32})}, {}, "Tensor[[64, 32], FP32]"});
  }
  for (const auto& op : kBlockIdentity) cases.push_back({op, {}, {}, "Scalar[INDEX]"});
  return cases;
}

std::vector<ErrorCase> TensorErrorCases() {
  ExprPtr n = Dim("N");
  ExprPtr m = Dim("M");
  std::vector<ErrorCase> cases = {
      {"tensor.create",
       {List({64, 0})},
       {{"dtype", F32}},
       "tensor.create: argument 'shape' [64, 0] has a non-positive dim 0 at index 1"},
      {"tensor.create", {List({64, 32})}, {}, "tensor.create is missing the required keyword argument 'dtype'"},
      {"tensor.create", {List({4})}, {{"dtype", DataType::TASK_ID}}, "dtype TASK_ID is not an element type"},
      {"tensor.dump_tag",
       {Tile({16, 32}, F32, MemorySpace::Vec)},
       {},
       "tensor.dump_tag: argument 'tensor' (position 0) must be a Tensor, got Tile[[16, 32], FP32"},
      {"tensor.full",
       {List({4, 8}), Float(0.5)},
       {{"dtype", I32}},
       "tensor.full: argument 'value' (position 1) must be an integer or boolean scalar that fits dtype INT32 "
       "without a cast, got Scalar[FP32]"},
      {"tensor.slice",
       {Tensor({64, 32}), List({16, 32}), List({56, 0})},
       {},
       "tensor.slice: window [16, 32] at offsets [56, 0] overruns tensor [64, 32] at dim 0 (56 + 16 > 64)"},
      {"tensor.slice",
       {Tensor({64, 32}), List({16}), List({0, 0})},
       {},
       "tensor.slice: argument 'shape' has 1 entries, expected 2 (one per dim)"},
      {"tensor.slice",
       {Tensor({64, 32}), List({16, 32}), List({0, 0}), List({20, 32})},
       {},
       "tensor.slice: argument 'valid_shape' [20, 32] exceeds the shape [16, 32] at dim 0 (20 > 16)"},
      {"tensor.slice",
       {Tensor({64, 32}), List({16, 32}), ListOf({Float(1.0), Int(0)})},
       {},
       "tensor.slice: argument 'offset' (position 2) must be a list of integers, got Tuple[Scalar[FP32], "
       "Scalar[INDEX]]"},
      {"tensor.assemble",
       {Tensor({64, 32}), Tensor({16, 32}, F16), List({0, 0})},
       {},
       "tensor.assemble: argument 'source' has dtype FP16 but the destination is FP32; cast it first"},
      {"tensor.assemble",
       {Tensor({64, 32}), Tensor({16, 32}), List({56, 0})},
       {},
       "tensor.assemble: source [16, 32] at offsets [56, 0] overruns target [64, 32] at dim 0 (56 + 16 > 64)"},
      {"tensor.assemble",
       {Tensor({64, 32}), Tensor({16, 32}), List({0, 0})},
       {{"atomic", int64_t{2}}},
       "tensor.assemble: keyword 'atomic' must be 0 (overwrite) or 1 (atomic add), got 2"},
      {"tensor.assemble",
       {Tensor({64, 32}, DataType::UINT8), Tensor({16, 32}, DataType::UINT8), List({0, 0})},
       {{"atomic", int64_t{1}}},
       "atomic add into a UINT8 destination is not supported"},
      {"tensor.assemble",
       {Tensor({64, 32}), Scalar(F32), List({0, 0})},
       {},
       "tensor.assemble: argument 'source' (position 1) must be a Tensor or a Tile, got Scalar[FP32]"},
      {"tensor.reshape",
       {Tensor({64, 32}), List({64, 64})},
       {},
       "tensor.reshape: cannot reshape [64, 32] (2048 elements) to [64, 64] (4096 elements)"},
      {"tensor.reshape",
       {DynTensor(Shape{n, Int(32)}), ListOf({m, Int(32)})},
       {},
       "tensor.reshape: cannot prove that [N, 32] and [M, 32] hold the same number of elements"},
      {"tensor.reshape",
       {Tensor({64, 32}, F32, {16, 32}), List({2048})},
       {},
       "tensor.reshape: argument 'tensor' is valid only on [16, 32] of [64, 32]; pass valid_shape for the result"},
      {"tensor.transpose",
       {Tensor({64, 32}), Int(0), Int(2)},
       {},
       "tensor.transpose: axis 2 (argument 'axis2') is out of range for rank 2; use -2 to 1"},
      {"tensor.transpose",
       {Tensor({64, 32}), Int(1), Int(-1)},
       {},
       "tensor.transpose: axis1 and axis2 are both 1; a transpose swaps two axes"},
      {"tensor.transpose",
       {Tensor({64}), Int(0), Int(0)},
       {},
       "tensor.transpose: argument 'tensor' (position 0) must be a Tensor of rank >= 2, got Tensor[[64], FP32]"},
      {"tensor.concat",
       {Tensor({64, 16}), Tensor({32, 16})},
       {},
       "tensor.concat: argument 'src1' [32, 16] does not match [64, 16] outside the last axis (dim 0: 64 vs 32)"},
      {"tensor.concat",
       {Tensor({64, 16}), Tensor({64, 16}, F16)},
       {},
       "tensor.concat: operands must have one dtype, got FP32 and FP16"},
      {"tensor.read",
       {Tensor({64, 32}), List({64, 0})},
       {},
       "tensor.read: index 64 is out of range for dim 0 of [64, 32]"},
      {"tensor.read",
       {Tensor({64, 32}), List({1})},
       {},
       "tensor.read: argument 'indices' has 1 entries, expected 2 (one per dim)"},
      {"tensor.write",
       {Tensor({64, 32}, I32), List({1, 2}), Float(2.0)},
       {},
       "tensor.write: argument 'value' (position 2) must be an integer or boolean scalar that fits the INT32 Tensor "
       "without a cast, got Scalar[FP32]"},
      {"tensor.dim",
       {Tensor({64, 32}), Scalar(DataType::INDEX)},
       {},
       "tensor.dim: argument 'axis' (position 1) must be an integer constant, got Scalar[INDEX]"},
      {"tensor.dim",
       {Tensor({64, 32}), Int(-3)},
       {},
       "tensor.dim: axis -3 (argument 'axis') is out of range for rank 2"},
      {"tensor.dim",
       {Tile({64, 32}), Int(0)},
       {},
       "tensor.dim: argument 'tensor' (position 0) must be a Tensor, got Tile[[64, 32], FP32]"},
      {"tensor.fillpad",
       {Tensor({64, 32})},
       {{"pad_value", EnumAttr::Of(PadValue::Null)}},
       "tensor.fillpad: pad_value must be zero, max or min; PadValue.null fills nothing"},
      {"tensor.cast",
       {Tensor({64, 32})},
       {{"target_type", F16}, {"mode", int64_t{9}}},
       "tensor.cast: keyword 'mode' must be one of 0=none, 1=rint, 2=round, 3=floor, 4=ceil, 5=trunc, 6=odd, got 9"},
      {"tensor.cast", {Tensor({64, 32})}, {}, "tensor.cast is missing the required keyword argument 'target_type'"},
      {"tensor.div",
       {Tensor({64, 32}, I32), Tensor({64, 32}, I32)},
       {{"high_precision", true}},
       "tensor.div: high_precision=True needs a floating-point result, got INT32; drop high_precision or cast the "
       "operands to FP32"},
      {"tensor.maximum",
       {Tensor({64, 32}), Tile({64, 32})},
       {},
       "tensor.maximum: argument 'rhs' (position 1) must be a Tensor, got Tile[[64, 32], FP32]"},
      {"tensor.add",
       {Tensor({4}, DataType::TASK_ID), Tensor({4})},
       {},
       "tensor.add: argument 'lhs' (position 0) must be a Tensor of a numeric dtype, got Tensor[[4], TASK_ID]"},
      {"tensor.cmp",
       {Tensor({64, 32}), Tensor({64, 32})},
       {{"cmp_type", int64_t{6}}},
       "tensor.cmp: keyword 'cmp_type' must be one of 0=eq, 1=ne, 2=lt, 3=le, 4=gt, 5=ge, got 6"},
      {"tensor.cmp",
       {Tensor({64, 32}), Tile({64, 32})},
       {},
       "tensor.cmp: argument 'rhs' (position 1) must be a Tensor or a scalar, got Tile[[64, 32], FP32]"},
      {"tensor.cmp",
       {Tensor({64, 32}), Tensor({32, 64})},
       {},
       "tensor.cmp: shapes [64, 32] and [32, 64] do not broadcast at dim 1 (32 vs 64)"},
      {"tensor.not",
       {Tensor({8, 8})},
       {},
       "tensor.not: argument 'input' (position 0) must be a Tensor of an integer dtype, got Tensor[[8, 8], FP32]"},
      {"tensor.expands",
       {Tensor({8, 8}, I32), Float(1.5)},
       {},
       "tensor.expands: argument 'scalar' (position 1) must be an integer or boolean scalar that fits the INT32 "
       "Tensor without a cast, got Scalar[FP32]"},
      {"tensor.matmul",
       {Tensor({64, 128}), Tensor({64, 32})},
       {},
       "tensor.matmul: inner dimensions differ: 'lhs' [64, 128] has K=128 but 'rhs' [64, 32] has K=64"},
      {"tensor.matmul",
       {Tensor({128, 64}), Tensor({128, 32})},
       {{"b_trans", true}},
       "tensor.matmul: inner dimensions differ: 'lhs' [128, 64] has K=64 but 'rhs' [128, 32] (b_trans) has K=32"},
      {"tensor.matmul",
       {Tensor({128}), Tensor({128, 32})},
       {},
       "tensor.matmul: argument 'lhs' (position 0) must be a Tensor of rank >= 2, got Tensor[[128], FP32]"},
      {"tensor.matmul",
       {Tensor({2, 64, 128}), Tensor({3, 128, 32})},
       {},
       "tensor.matmul: shapes [2] and [3] do not broadcast at dim 0 (2 vs 3)"},
      {"tensor.matmul_acc",
       {Tensor({64, 32}, F16), Tensor({64, 128}, F16), Tensor({128, 32}, F16)},
       {},
       "tensor.matmul_acc: argument 'acc' must be FP32 to accumulate FP16 products, got FP16"},
      {"tensor.matmul_acc",
       {Tensor({64, 64}), Tensor({64, 128}), Tensor({128, 32})},
       {},
       "tensor.matmul_acc: argument 'acc' has shape [64, 64] but lhs @ rhs has shape [64, 32]"},
      {"tensor.matmul_acc",
       {Tensor({64, 32}), Tensor({64, 128}), Tensor({128, 32}, F16)},
       {},
       "tensor.matmul_acc: lhs and rhs must have one dtype, got FP32 and FP16"},
      {"tensor.matmul_acc",
       {Tensor({64, 32}), Tensor({64, 128}), Tensor({128, 32}), Int(1)},
       {},
       "tensor.matmul_acc: argument 'init_cond' (position 3) must be a BOOL scalar, got Scalar[INDEX]"},
  };
  for (const auto& op : kBroadcastOps) {
    cases.push_back({op,
                     {Tensor({64, 32}), Tensor({16, 32})},
                     {},
                     op + ": shapes [64, 32] and [16, 32] do not broadcast at dim 0 (64 vs 16)"});
  }
  for (const auto& op : kScalarOps) {
    cases.push_back({op,
                     {Tensor({64, 32}), Tensor({64, 32})},
                     {},
                     op + ": argument 'rhs' (position 1) must be a scalar, got Tensor[[64, 32], FP32]"});
  }
  for (const auto& op : kBitwiseOps) {
    cases.push_back({op,
                     {Tensor({8, 16}, I32), Tensor({1, 16}, I32)},
                     {},
                     op + ": operands must have one shape, got [8, 16] and [1, 16]; bitwise and shift ops do not "
                          "broadcast, expand the operand first"});
  }
  for (const auto& op : kShiftOps) {
    cases.push_back(
        {op,
         {Tensor({8, 16}, I32), Tensor({8, 16})},
         {},
         op + ": argument 'rhs' (position 1) must be a Tensor of an integer dtype, got Tensor[[8, 16], FP32]"});
  }
  for (const auto& op : kBitwiseScalarOps) {
    cases.push_back({op,
                     {Tensor({8, 16}, I32), Float(1.0)},
                     {},
                     op + ": argument 'rhs' (position 1) must be an integer scalar, got Scalar[FP32]"});
  }
  for (const auto& op : kShiftScalarOps) {
    cases.push_back({op, {Tensor({8, 16}, I32), Int(-1)}, {}, op + ": shift count must be non-negative, got -1"});
  }
  for (const auto& op : kFloatUnaryOps) {
    cases.push_back({op,
                     {Tensor({8, 16}, I32)},
                     {},
                     op + ": argument 'input' (position 0) must be a Tensor of a floating-point dtype (cast it first), "
                          "got Tensor[[8, 16], INT32]"});
  }
  for (const auto& op : kSignedUnaryOps) {
    cases.push_back({op,
                     {Tensor({8, 16}, DataType::UINT8)},
                     {},
                     op + ": argument 'input' (position 0) must be a Tensor of a signed integer or floating-point "
                          "dtype, got Tensor[[8, 16], UINT8]"});
  }
  for (const auto& op : kRowReductions) {
    cases.push_back({op,
                     {Tensor({64})},
                     {},
                     op + ": argument 'input' (position 0) must be a Tensor of rank >= 2, got Tensor[[64], FP32]"});
  }
  for (const auto& op : {"tensor.row_argmax", "tensor.row_argmin", "tensor.col_argmax", "tensor.col_argmin"}) {
    cases.push_back({op, {Tensor({4}, DataType::TASK_ID)}, {}, "must be a Tensor of rank >= 2"});
  }
  for (const auto& op : kColReductions) {
    cases.push_back(
        {op, {Tile({64, 32})}, {}, op + ": argument 'input' (position 0) must be a Tensor, got Tile[[64, 32], FP32]"});
  }
  for (const auto& op : kRowExpands) {
    cases.push_back(
        {op,
         {Tensor({64, 32}), Tensor({1, 32})},
         {},
         op + ": argument 'row_vec' must have shape [64, 1] to expand along the rows of [64, 32], got [1, 32]"});
    cases.push_back(
        {op, {Tensor({64, 32}), Tensor({64, 1}, F16)}, {}, op + ": argument 'row_vec' has dtype FP16 but argument '"});
  }
  for (const auto& op : kColExpands) {
    cases.push_back(
        {op,
         {Tensor({64, 32}), Tensor({64, 1})},
         {},
         op + ": argument 'col_vec' must have shape [1, 32] to expand along the columns of [64, 32], got [64, 1]"});
  }
  for (const auto& op : kBlockIdentity) {
    cases.push_back(
        {op, {Int(0)}, {}, op + " takes 0 positional argument(s) but 1 were given; signature: " + op + "()"});
  }
  return cases;
}

}  // namespace pypto::ops::testing
