// Types: scalars, tensors with layouts and views, tiles with spaces, views and
// memrefs, tuples, arrays, pointers.
#include "printer_test_util.h"

namespace pypto::ir {
namespace {

using namespace printer_test;

TEST(PrinterTypeTest, Scalars) {
  EXPECT_EQ(Print(ScalarOf(DataType::INT64)), "pl.Scalar[pl.INT64]");
  EXPECT_EQ(Print(ScalarOf(DataType::TASK_ID)), "pl.Scalar[pl.TASK_ID]");
  EXPECT_EQ(Print(ScalarOf(DataType::FP8E4M3FN)), "pl.Scalar[pl.FP8E4M3FN]");
}

TEST(PrinterTypeTest, TensorShapesLayoutsAndViews) {
  auto n = ScalarVar("n");
  EXPECT_EQ(Print(TensorType::Make({64, 128}, DataType::FP32)), "pl.Tensor[[64, 128], pl.FP32]");
  EXPECT_EQ(Print(TensorType::Make(std::vector<ExprPtr>{}, DataType::FP32)), "pl.Tensor[[], pl.FP32]");
  EXPECT_EQ(Print(TensorType::Make({Bin(BinaryOp::Mul, n, Int(2)), Int(64)}, DataType::BF16)),
            "pl.Tensor[[n * 2, 64], pl.BF16]");
  EXPECT_EQ(Print(TensorType::Make(Ints({64, 128}), DataType::FP16, TensorLayout::DN)),
            "pl.Tensor[[64, 128], pl.FP16, pl.TensorLayout.DN]");

  TensorView view;
  view.strides = Ints({128, 1});
  view.valid_shape = {n, Int(128)};
  view.pad = PadValue::Zero;
  EXPECT_EQ(Print(TensorType::Make(Ints({64, 128}), DataType::FP32, TensorLayout::ND, view)),
            "pl.Tensor[[64, 128], pl.FP32, pl.TensorView(stride=[128, 1], valid_shape=[n, 128], "
            "pad=pl.PadValue.zero, layout=pl.TensorLayout.ND)]");
  EXPECT_EQ(Print(TensorType::Make(Ints({8}), DataType::FP32, TensorLayout::NZ, TensorView{})),
            "pl.Tensor[[8], pl.FP32, pl.TensorView(layout=pl.TensorLayout.NZ)]");
}

TEST(PrinterTypeTest, TilesWithSpacesAndViews) {
  EXPECT_EQ(Print(TileType::Make({16, 16}, DataType::FP16)), "pl.Tile[[16, 16], pl.FP16]");
  EXPECT_EQ(Print(TileType::Make({16, 16}, DataType::FP16, MemorySpace::Vec)),
            "pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec]");

  auto tile = std::make_shared<TileType>(*TileType::Make({16, 16}, DataType::FP32, MemorySpace::Acc));
  tile->valid_shape = {Int(8), ScalarVar("n")};
  tile->blayout = TileLayout::ColMajor;
  tile->slayout = TileLayout::RowMajor;
  tile->fractal = 1024;
  tile->pad = PadValue::Max;
  EXPECT_EQ(Print(tile),
            "pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[8, n], blayout=pl.TileLayout.col_major, "
            "slayout=pl.TileLayout.row_major, fractal=1024, pad=pl.PadValue.max)]");

  auto no_space = std::make_shared<TileType>(*TileType::Make({4, 4}, DataType::INT8));
  no_space->slayout = TileLayout::NoneBox;
  EXPECT_EQ(Print(no_space), "pl.Tile[[4, 4], pl.INT8, pl.TileView(slayout=pl.TileLayout.none_box)]");
}

TEST(PrinterTypeTest, TileMemRefsPrintInline) {
  auto base = Var::Make("buf", PtrType::Make(MemorySpace::Vec));
  auto tile = std::make_shared<TileType>(*TileType::Make({16, 16}, DataType::FP16, MemorySpace::Vec));
  tile->memref = MemRef::Make("mem_vec_0", MemorySpace::Vec, base, Int(0), 512);
  EXPECT_EQ(Print(tile),
            "pl.Tile[[16, 16], pl.FP16, pl.MemRef(\"mem_vec_0\", 0, 512, pl.Mem.Vec, base=buf), pl.Mem.Vec]");

  auto unplaced = std::make_shared<TileType>(*TileType::Make({8, 8}, DataType::FP32));
  unplaced->memref = MemRef::Make("m", MemorySpace::Mat, nullptr, Int(256), 256);
  EXPECT_EQ(Print(unplaced), "pl.Tile[[8, 8], pl.FP32, pl.MemRef(\"m\", 256, 256, pl.Mem.Mat)]");
  EXPECT_EQ(Print(unplaced->memref), "pl.MemRef(\"m\", 256, 256, pl.Mem.Mat)");
}

TEST(PrinterTypeTest, TuplesArraysPointersAndUnknown) {
  EXPECT_EQ(Print(TupleType::Make({ScalarOf(), TensorType::Make(std::vector<int64_t>{4}, DataType::FP32)})),
            "pl.Tuple[pl.Scalar[pl.INDEX], pl.Tensor[[4], pl.FP32]]");
  EXPECT_EQ(Print(TupleType::Make({ScalarOf(DataType::BOOL)})), "pl.Tuple[pl.Scalar[pl.BOOL]]");
  EXPECT_EQ(Print(TupleType::Make({})), "pl.Tuple[()]");
  EXPECT_EQ(Print(ArrayType::Make(DataType::TASK_ID, Int(8))), "pl.Array[8, pl.TASK_ID]");
  EXPECT_EQ(Print(PtrType::Make(MemorySpace::Vec)), "pl.Ptr[pl.Mem.Vec]");
  EXPECT_EQ(Print(PtrType::Make()), "pl.Ptr");
  EXPECT_EQ(Print(UnknownType::Make()), "pl.Unknown");
}

}  // namespace
}  // namespace pypto::ir
