#include "pypto/ir/tile_storage.h"

namespace pypto::ir {

TileLayoutDefaults DefaultTileLayout(MemorySpace space) {
  switch (space) {
    case MemorySpace::Mat: return {TileLayout::ColMajor, TileLayout::RowMajor, 512};
    case MemorySpace::Left: return {TileLayout::ColMajor, TileLayout::RowMajor, 512};
    case MemorySpace::Right: return {TileLayout::RowMajor, TileLayout::ColMajor, 512};
    case MemorySpace::Acc: return {TileLayout::ColMajor, TileLayout::RowMajor, 1024};
    default: return {TileLayout::RowMajor, TileLayout::NoneBox, 512};
  }
}

TileStorageOrder StorageOrderOf(const TileType& tile, const std::vector<int64_t>& shape) {
  TileLayoutDefaults defaults = DefaultTileLayout(tile.memory_space.value_or(MemorySpace::Vec));
  TileLayout slayout = tile.slayout.value_or(defaults.slayout);
  if (shape.size() < 2) return TileStorageOrder::kRowMajor;
  if (slayout != TileLayout::NoneBox) return TileStorageOrder::kFractal;
  if (shape[1] == 1 && shape[0] > 1) return TileStorageOrder::kColMajor;
  TileLayout blayout = tile.blayout && *tile.blayout != TileLayout::NoneBox ? *tile.blayout : defaults.blayout;
  return blayout == TileLayout::ColMajor ? TileStorageOrder::kColMajor : TileStorageOrder::kRowMajor;
}

FractalBox FractalBoxOf(const TileType& tile) {
  constexpr int64_t kFixedEdge = 16;
  constexpr int64_t kAccFractalBytes = 1024;
  TileLayoutDefaults defaults = DefaultTileLayout(tile.memory_space.value_or(MemorySpace::Vec));
  const int64_t fractal = tile.fractal != 0 ? tile.fractal : defaults.fractal;
  if (fractal == kAccFractalBytes) return {kFixedEdge, kFixedEdge};
  const int64_t line = kTileLineBytes * 8 / tile.dtype.bits();
  if (tile.slayout.value_or(defaults.slayout) == TileLayout::ColMajor) return {line, kFixedEdge};
  return {kFixedEdge, line};
}

namespace {

int64_t RoundUp(int64_t extent, int64_t multiple) { return (extent + multiple - 1) / multiple * multiple; }

int64_t WholeLines(int64_t extent, DataType dtype) {
  int64_t bytes = dtype.StorageBytes(extent);
  int64_t padded = (bytes + kTileLineBytes - 1) / kTileLineBytes * kTileLineBytes;
  return extent + (padded - bytes) * 8 / dtype.bits();
}

}  // namespace

std::vector<int64_t> StorageShape(const TileType& tile, const std::vector<int64_t>& shape) {
  if (shape.empty() || shape.size() > 2) return shape;
  std::vector<int64_t> storage = shape;
  switch (StorageOrderOf(tile, shape)) {
    case TileStorageOrder::kRowMajor: storage.back() = WholeLines(shape.back(), tile.dtype); break;
    case TileStorageOrder::kColMajor: storage[0] = WholeLines(shape[0], tile.dtype); break;
    case TileStorageOrder::kFractal: {
      FractalBox box = FractalBoxOf(tile);
      if (shape[0] != 1) storage[0] = RoundUp(shape[0], box.rows);
      storage[1] = RoundUp(shape[1], box.cols);
      break;
    }
  }
  return storage;
}

int64_t StorageBytesOf(const TileType& tile, const std::vector<int64_t>& shape) {
  int64_t elements = 1;
  for (int64_t dim : StorageShape(tile, shape)) elements *= dim;
  return tile.dtype.StorageBytes(elements);
}

}  // namespace pypto::ir
