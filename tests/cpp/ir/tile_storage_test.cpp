#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "pypto/ir/tile_storage.h"

using namespace pypto::ir;

namespace {

std::shared_ptr<TileType> Tile(const std::vector<int64_t>& shape, DataType dtype,
                               MemorySpace space = MemorySpace::Vec) {
  return std::make_shared<TileType>(*TileType::Make(shape, dtype, space));
}

using Extents = std::vector<int64_t>;

}  // namespace

// pto::Tile's static_assert: a row-major plain tile's row is whole 32-byte lines.
TEST(TileStorage, RowMajorRowsArePaddedToWhole32ByteLines) {
  EXPECT_EQ(StorageShape(*Tile({16, 32}, DataType::FP32), {16, 32}), (Extents{16, 32}));
  EXPECT_EQ(StorageShape(*Tile({16, 16}, DataType::INT8), {16, 16}), (Extents{16, 32}));
  EXPECT_EQ(StorageShape(*Tile({3, 5}, DataType::FP16), {3, 5}), (Extents{3, 16}));
  EXPECT_EQ(StorageShape(*Tile({1, 4}, DataType::INT32), {1, 4}), (Extents{1, 8}));
  EXPECT_EQ(StorageBytesOf(*Tile({3, 5}, DataType::FP16), {3, 5}), 96);
}

// One column is stored column-major: its rows make the line.
TEST(TileStorage, AColumnVectorIsColumnMajorWithItsRowsPadded) {
  auto column = Tile({16, 1}, DataType::INT8);
  EXPECT_EQ(StorageOrderOf(*column, {16, 1}), TileStorageOrder::kColMajor);
  EXPECT_EQ(StorageShape(*column, {16, 1}), (Extents{32, 1}));
  EXPECT_EQ(StorageShape(*Tile({16, 1}, DataType::FP32), {16, 1}), (Extents{16, 1}));
}

TEST(TileStorage, AnExplicitColumnMajorTilePadsItsColumns) {
  auto tile = Tile({8, 4}, DataType::FP16);
  tile->blayout = TileLayout::ColMajor;
  EXPECT_EQ(StorageOrderOf(*tile, {8, 4}), TileStorageOrder::kColMajor);
  EXPECT_EQ(StorageShape(*tile, {8, 4}), (Extents{16, 4}));
}

// pto::Tile's InnerRows x InnerCols: 16 rows of 32 bytes in Mat and Left,
// 32 bytes of rows by 16 columns in Right, 16 x 16 in Acc; one row is allowed.
TEST(TileStorage, FractalTilesHoldWholeBlocks) {
  auto left = Tile({16, 24}, DataType::FP16, MemorySpace::Left);
  EXPECT_EQ(StorageOrderOf(*left, {16, 24}), TileStorageOrder::kFractal);
  EXPECT_EQ(StorageShape(*left, {16, 24}), (Extents{16, 32}));
  EXPECT_EQ(StorageShape(*Tile({16, 24}, DataType::FP32, MemorySpace::Left), {16, 24}), (Extents{16, 24}));
  EXPECT_EQ(StorageShape(*Tile({8, 32}, DataType::FP16, MemorySpace::Mat), {8, 32}), (Extents{16, 32}));
  EXPECT_EQ(StorageShape(*Tile({64, 24}, DataType::FP32, MemorySpace::Right), {64, 24}), (Extents{64, 32}));
  EXPECT_EQ(StorageShape(*Tile({20, 16}, DataType::FP16, MemorySpace::Right), {20, 16}), (Extents{32, 16}));
  EXPECT_EQ(StorageShape(*Tile({16, 24}, DataType::FP32, MemorySpace::Acc), {16, 24}), (Extents{16, 32}));
  EXPECT_EQ(StorageShape(*Tile({1, 24}, DataType::FP16, MemorySpace::Left), {1, 24}), (Extents{1, 32}));
  EXPECT_EQ(StorageBytesOf(*Tile({64, 24}, DataType::FP32, MemorySpace::Right), {64, 24}), 64 * 32 * 4);
  auto plain_mat = Tile({16, 24}, DataType::FP16, MemorySpace::Mat);
  plain_mat->slayout = TileLayout::NoneBox;
  plain_mat->blayout = TileLayout::RowMajor;
  EXPECT_EQ(StorageShape(*plain_mat, {16, 24}), (Extents{16, 32}));
}

TEST(TileStorage, DefaultLayoutsAreTheIsaAliases) {
  EXPECT_EQ(DefaultTileLayout(MemorySpace::Vec).slayout, TileLayout::NoneBox);
  EXPECT_EQ(DefaultTileLayout(MemorySpace::Left).blayout, TileLayout::ColMajor);
  EXPECT_EQ(DefaultTileLayout(MemorySpace::Right).slayout, TileLayout::ColMajor);
  EXPECT_EQ(DefaultTileLayout(MemorySpace::Acc).fractal, 1024);
}
