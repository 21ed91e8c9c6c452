// The shared rules: broadcasting, dtype promotion, scalar operands, the
// keyword and arity checks every op goes through, and the extent helpers.
#include <gtest/gtest.h>

#include "op_test_util.h"

namespace pypto::ops::testing {
namespace {

struct BroadcastRow {
  Shape lhs;
  Shape rhs;
  std::string result;  // Describe() of tensor.add's result, or the error fragment
};

TEST(Broadcasting, Table) {
  ExprPtr n = Dim("N");
  ExprPtr m = Dim("M");
  const std::vector<BroadcastRow> ok = {
      {Ints({64, 32}), Ints({64, 32}), "Tensor[[64, 32], FP32]"},
      {Ints({64, 32}), Ints({32}), "Tensor[[64, 32], FP32]"},
      {Ints({64, 1}), Ints({1, 32}), "Tensor[[64, 32], FP32]"},
      {Ints({1}), Ints({8, 4}), "Tensor[[8, 4], FP32]"},
      {Ints({2, 1, 4}), Ints({3, 1}), "Tensor[[2, 3, 4], FP32]"},
      {{n, Int(32)}, Ints({1, 32}), "Tensor[[N, 32], FP32]"},
      {{n, Int(32)}, {n, Int(1)}, "Tensor[[N, 32], FP32]"},
      {Ints({1, 32}), {n, Int(32)}, "Tensor[[N, 32], FP32]"},
      {{n, m}, {n, m}, "Tensor[[N, M], FP32]"},
  };
  for (const auto& row : ok) {
    EXPECT_EQ(Describe(Deduce("tensor.add", {DynTensor(row.lhs), DynTensor(row.rhs)})), row.result)
        << ShapeString(row.lhs) << " + " << ShapeString(row.rhs);
  }
  const std::vector<BroadcastRow> bad = {
      {Ints({64, 32}), Ints({16, 32}), "tensor.add: shapes [64, 32] and [16, 32] do not broadcast at dim 0 (64 vs 16)"},
      {Ints({64, 32}), Ints({64}), "tensor.add: shapes [64, 32] and [64] do not broadcast at dim 1 (32 vs 64)"},
      {Ints({2, 3, 4}), Ints({5, 4}), "shapes [2, 3, 4] and [5, 4] do not broadcast at dim 1 (3 vs 5)"},
      {{n, Int(32)},
       {m, Int(32)},
       "shapes [N, 32] and [M, 32] do not broadcast at dim 0 (N vs M); a dynamic dim matches only itself or 1"},
      {{n, Int(32)}, Ints({64, 32}), "do not broadcast at dim 0 (N vs 64); a dynamic dim matches only itself or 1"},
  };
  for (const auto& row : bad) {
    std::string message = ErrorOf("tensor.add", {DynTensor(row.lhs), DynTensor(row.rhs)});
    EXPECT_NE(message.find(row.result), std::string::npos) << message;
  }
}

TEST(Broadcasting, TilesFollowTheSameRule) {
  EXPECT_EQ(Describe(Deduce("tile.mul", {Tile({64, 1}), Tile({1, 32})})), "Tile[[64, 32], FP32, Vec]");
  EXPECT_EQ(ErrorOf("tile.mul", {Tile({64, 32}), Tile({32, 64})}),
            "tile.mul: shapes [64, 32] and [32, 64] do not broadcast at dim 1 (32 vs 64)");
}

TEST(Broadcasting, ValidRegionIsTheIntersectionOverSpanningOperands) {
  // rhs spans dim 1 only; lhs spans both.
  EXPECT_EQ(Describe(Deduce("tensor.mul",
                            {Tensor({64, 32}, DataType::FP32, {40, 32}), Tensor({1, 32}, DataType::FP32, {1, 16})})),
            "Tensor[[64, 32], FP32, valid=[40, 16]]");
  ExprPtr rows = Dim("rows");
  EXPECT_EQ(Describe(Deduce("tile.add", {DynTile(Ints({64, 32}), DataType::FP32, std::nullopt, {rows, Int(32)}),
                                         DynTile(Ints({64, 32}), DataType::FP32, std::nullopt, {Int(48), Int(32)})})),
            "Tile[[64, 32], FP32, Vec, valid=[min(rows, 48), 32]]");
}

struct PromotionRow {
  DataType lhs;
  DataType rhs;
  DataType result;
};

TEST(Promotion, Table) {
  using D = DataType;
  const std::vector<PromotionRow> rows = {
      {D::INT8, D::INT16, D::INT16},    {D::INT32, D::FP16, D::FP16}, {D::FP16, D::BF16, D::FP32},
      {D::UINT32, D::INT32, D::INT32},  {D::BOOL, D::INT8, D::INT8},  {D::FP32, D::FP64, D::FP64},
      {D::UINT8, D::UINT16, D::UINT16}, {D::FP16, D::FP16, D::FP16},  {D::INT64, D::FP8E4M3FN, D::FP8E4M3FN},
  };
  for (const auto& row : rows) {
    auto type = As<TensorType>(Deduce("tensor.add", {Tensor({4, 4}, row.lhs), Tensor({4, 4}, row.rhs)}));
    EXPECT_EQ(type->dtype, row.result) << row.lhs.name() << " + " << row.rhs.name();
    auto swapped = As<TensorType>(Deduce("tensor.mul", {Tensor({4, 4}, row.rhs), Tensor({4, 4}, row.lhs)}));
    EXPECT_EQ(swapped->dtype, row.result) << row.rhs.name() << " * " << row.lhs.name();
  }
}

TEST(ScalarOperands, TensorScalarsNeverWidenButLiftTheKind) {
  using D = DataType;
  auto result = [](D array, D scalar) {
    return As<TensorType>(Deduce("tensor.muls", {Tensor({4}, array), Scalar(scalar)}))->dtype;
  };
  EXPECT_EQ(result(D::FP16, D::FP32), D::FP16);
  EXPECT_EQ(result(D::BF16, D::FP64), D::BF16);
  EXPECT_EQ(result(D::INT8, D::INT64), D::INT8);
  EXPECT_EQ(result(D::INT32, D::FP32), D::FP32);
  EXPECT_EQ(result(D::BOOL, D::INT32), D::INT32);
  EXPECT_EQ(result(D::BOOL, D::INDEX), D::INT64);
  EXPECT_EQ(ErrorOf("tensor.adds", {Tensor({4}), Scalar(D::TASK_ID)}),
            "tensor.adds: argument 'rhs' (position 1) must be a numeric scalar, got Scalar[TASK_ID]");
}

TEST(ScalarOperands, TileScalarsMustFitTheTile) {
  using D = DataType;
  EXPECT_EQ(Describe(Deduce("tile.adds", {Tile({4, 4}, D::INT8), Scalar(D::INT64)})), "Tile[[4, 4], INT8, Vec]");
  EXPECT_EQ(Describe(Deduce("tile.adds", {Tile({4, 4}, D::FP16), Scalar(D::INT32)})), "Tile[[4, 4], FP16, Vec]");
  EXPECT_EQ(ErrorOf("tile.adds", {Tile({4, 4}, D::BOOL), Scalar(D::INT32)}),
            "tile.adds: argument 'rhs' (position 1) must be a boolean scalar that fits the BOOL Tile without a cast, "
            "got Scalar[INT32]");
}

TEST(KwargSchema, UnknownKeyword) {
  auto a = Tensor({4, 4});
  EXPECT_EQ(ErrorOf("tensor.add", {a, a}, {{"alpha", 2.0}}),
            "tensor.add got an unexpected keyword argument 'alpha'; it takes no keyword arguments");
  EXPECT_EQ(ErrorOf("tensor.cast", {a}, {{"target_type", DataType::FP16}, {"rounding", int64_t{1}}}),
            "tensor.cast got an unexpected keyword argument 'rounding'; valid keywords: target_type, mode");
}

TEST(KwargSchema, WrongKind) {
  auto a = Tensor({4, 4});
  EXPECT_EQ(ErrorOf("tensor.cast", {a}, {{"target_type", DataType::FP16}, {"mode", std::string("round")}}),
            "tensor.cast: keyword 'mode' must be int, got str");
  EXPECT_EQ(ErrorOf("tensor.create", {List({4})}, {{"dtype", std::string("FP32")}}),
            "tensor.create: keyword 'dtype' must be DataType, got str");
  EXPECT_EQ(ErrorOf("tile.load", {a, List({0, 0}), List({4, 4})}, {{"target_memory", EnumAttr::Of(PadValue::Zero)}}),
            "tile.load: keyword 'target_memory' must be pl.MemorySpace, got enum");
  EXPECT_EQ(ErrorOf("tensor.matmul", {a, a}, {{"a_trans", int64_t{1}}}),
            "tensor.matmul: keyword 'a_trans' must be bool, got int");
}

TEST(KwargSchema, MissingRequired) {
  EXPECT_EQ(ErrorOf("tile.move", {Tile({4, 4})}), "tile.move is missing the required keyword argument 'target_memory'");
  EXPECT_EQ(ErrorOf("tile.full", {List({4, 4}), Float(0.0)}),
            "tile.full is missing the required keyword argument 'dtype'");
}

TEST(KwargSchema, DefaultsApplyWhenAbsent) {
  auto call = OpRegistry::Global().Create("tensor.cast", {Tensor({4})}, {{"target_type", DataType::FP16}});
  EXPECT_FALSE(call->kwargs.Has("mode"));
  const KwargSpec* mode = OpRegistry::Global().Get("tensor.cast").FindKwarg("mode");
  ASSERT_NE(mode, nullptr);
  EXPECT_EQ(std::get<int64_t>(*mode->default_value), kCastModeRound);
}

TEST(Arity, TooFewTooMany) {
  auto a = Tensor({4, 4});
  EXPECT_EQ(ErrorOf("tensor.add", {a}),
            "tensor.add takes 2 positional argument(s) but 1 were given; signature: tensor.add(lhs, rhs)");
  EXPECT_EQ(ErrorOf("tensor.slice", {a, List({2, 2}), List({0, 0}), List({2, 2}), List({0, 0})}),
            "tensor.slice takes 3 to 4 positional argument(s) but 5 were given; signature: "
            "tensor.slice(input, shape, offset, valid_shape=None)");
  EXPECT_EQ(ErrorOf("tile.store", {Tile({4, 4}), List({0, 0})}),
            "tile.store takes 3 positional argument(s) but 2 were given; signature: "
            "tile.store(tile, offsets, output_tensor, atomic=...)");
  EXPECT_EQ(ErrorOf("system.bar_all", {a}),
            "system.bar_all takes 0 positional argument(s) but 1 were given; signature: system.bar_all()");
}

TEST(Arity, UnknownOpSuggestsCloseNames) {
  try {
    Deduce("tensor.ad", {});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_NE(e.message().find("unknown op 'tensor.ad'; did you mean tensor.add"), std::string::npos) << e.message();
  }
}

TEST(Extents, FoldingAndPrinting) {
  ExprPtr n = Dim("N");
  EXPECT_EQ(DimString(AddDims(Int(3), Int(4))), "7");
  EXPECT_EQ(DimString(AddDims(n, Int(0))), "N");
  EXPECT_EQ(DimString(AddDims(n, Int(16))), "(N + 16)");
  EXPECT_EQ(DimString(SubDims(n, Int(16))), "(N - 16)");
  EXPECT_EQ(DimString(MinDims(Int(8), Int(5))), "5");
  EXPECT_EQ(DimString(MinDims(n, n)), "N");
  EXPECT_EQ(DimString(MaxDims(n, Int(2))), "max(N, 2)");
  EXPECT_TRUE(SameDim(Int(4), Int(4, DataType::INT64)));
  EXPECT_FALSE(SameDim(n, Dim("N")));
  EXPECT_TRUE(SameDim(AddDims(n, Int(1)), AddDims(n, Int(1))));
  EXPECT_EQ(StaticElementCount(Ints({4, 8})), 32);
  EXPECT_EQ(StaticElementCount({n, Int(8)}), std::nullopt);
}

TEST(Extents, DynamicConcatAndSlice) {
  ExprPtr n = Dim("N");
  EXPECT_EQ(Describe(Deduce("tensor.concat", {DynTensor({Int(8), n}), Tensor({8, 16})})),
            "Tensor[[8, (N + 16)], FP32]");
  ExprPtr i = Dim("i");
  EXPECT_EQ(Describe(Deduce("tensor.slice", {DynTensor(Ints({64, 32}), DataType::FP32, {n, Int(32)}), List({16, 32}),
                                             ListOf({i, Int(0)})})),
            "Tensor[[16, 32], FP32, valid=[min(16, (N - i)), 32]]");
}

}  // namespace
}  // namespace pypto::ops::testing
