#pragma once

#include <cstdint>
#include <vector>

#include "pypto/ir/type.h"

// How a tile's elements lie in its on-chip buffer: the facts that memory
// planning (InitMemRef) and code generation must agree on.
namespace pypto::ir {

// The layout a tile of `space` has when its type names none: pto-isa's
// Tile aliases (plain row-major Vec tiles; TileLeft, TileRight, TileAcc and
// the Mat staging tile in fractal blocks).
struct TileLayoutDefaults {
  TileLayout blayout;
  TileLayout slayout;
  int64_t fractal;
};
TileLayoutDefaults DefaultTileLayout(MemorySpace space);

enum class TileStorageOrder { kRowMajor, kColMajor, kFractal };

// A plain tile (no fractal blocks) of one column and several rows is stored
// column-major, whatever its type says: one column is the same storage in
// either order, and pto-isa's row-major plain tiles need whole 32-byte rows.
TileStorageOrder StorageOrderOf(const TileType& tile, const std::vector<int64_t>& shape);

// The rows and columns of one fractal block of a tile stored in blocks
// (pto::Tile's InnerRows and InnerCols): 16 x 16 for the 1024-byte blocks
// of Acc; for 512-byte blocks 16 rows of 32 bytes when the blocks are
// row-major inside (Mat, Left), 32 bytes of rows by 16 columns when they are
// column-major (Right).
struct FractalBox {
  int64_t rows;
  int64_t cols;
};
FractalBox FractalBoxOf(const TileType& tile);

// pto-isa's plain tiles hold whole 32-byte lines along their contiguous axis:
// the row of a row-major tile, the column of a column-major one; its fractal
// tiles hold whole blocks (static_asserts in pto::Tile). The extents of the
// buffer a 2-D tile of static `shape` occupies: `shape` with that axis
// rounded up to a whole line, or both axes to whole blocks (a fractal tile of
// one row keeps its one row, as pto::Tile allows). A tile of rank 1 is one
// row. The tile's own extents are its valid shape within the buffer.
inline constexpr int64_t kTileLineBytes = 32;
std::vector<int64_t> StorageShape(const TileType& tile, const std::vector<int64_t>& shape);

// The bytes of that buffer.
int64_t StorageBytesOf(const TileType& tile, const std::vector<int64_t>& shape);

}  // namespace pypto::ir
