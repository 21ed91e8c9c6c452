// Tiles (typed windows of an on-chip buffer) and global tensors (views of
// device memory), in the shape of the PTO tile ISA's C++ types.
#pragma once

#include "pypto/isa/sim_core.h"
#include "pypto/isa/types.h"

namespace pto {

// A valid extent given at run time instead of as a template argument.
inline constexpr int DYNAMIC = -1;

enum class BLayout : uint8_t { RowMajor = 0, ColMajor = 1 };
enum class SLayout : uint8_t { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue : uint8_t { Null = 0, Zero = 1, Max = 2, Min = 3 };
enum class Layout : uint8_t { ND = 0, DN = 1, NZ = 2 };

template <typename T, PadValue P>
inline T PadOf() {
  if constexpr (P == PadValue::Max) {
    return Limits<T>::Max();
  } else if constexpr (P == PadValue::Min) {
    return Limits<T>::Min();
  } else {
    return static_cast<T>(0.0f);
  }
}

// ---------------------------------------------------------------------------
// Tile<space, T, Rows, Cols, BLayout, ValidRows, ValidCols, SLayout, Fractal, Pad>
//
// Rows x Cols elements at a byte address of the space's buffer (TASSIGN).
// Element (r, c) sits at r * Cols + c (RowMajor) or c * Rows + r (ColMajor).
// Only the valid region [0, ValidRows) x [0, ValidCols) holds data; an
// instruction that writes a tile whose Pad is not Null fills the rest with
// the pad value (Zero: 0, Max: +inf / the type's maximum, Min: -inf / the
// type's minimum). ValidRows / ValidCols may be DYNAMIC: the constructor
// takes them. The simulator keeps the plain block layout for every SLayout.
// ---------------------------------------------------------------------------
template <TileType Space, typename T, int Rows, int Cols, BLayout BL = BLayout::RowMajor, int ValidRows = Rows,
          int ValidCols = Cols, SLayout SL = SLayout::NoneBox, int Fractal = 512, PadValue Pad = PadValue::Null>
struct Tile {
  static_assert(Rows > 0 && Cols > 0, "a tile has positive static extents");
  static_assert(ValidRows == DYNAMIC || (ValidRows >= 0 && ValidRows <= Rows), "ValidRows must be in 0..Rows");
  static_assert(ValidCols == DYNAMIC || (ValidCols >= 0 && ValidCols <= Cols), "ValidCols must be in 0..Cols");

  using DType = T;
  static constexpr TileType Loc = Space;
  static constexpr int kRows = Rows;
  static constexpr int kCols = Cols;
  static constexpr int kSize = Rows * Cols;
  static constexpr uint64_t kBytes = static_cast<uint64_t>(kSize) * sizeof(T);
  static constexpr BLayout kBLayout = BL;
  static constexpr SLayout kSLayout = SL;
  static constexpr int kFractal = Fractal;
  static constexpr PadValue kPad = Pad;
  static constexpr bool kRowMajor = BL == BLayout::RowMajor;
  static constexpr bool kStaticValid = ValidRows != DYNAMIC && ValidCols != DYNAMIC;

  T* data = nullptr;
  SimCore* core = nullptr;
  uint64_t addr = 0;
  int valid_rows = ValidRows == DYNAMIC ? Rows : ValidRows;
  int valid_cols = ValidCols == DYNAMIC ? Cols : ValidCols;

  Tile() = default;
  Tile(int rows, int cols) {
    static_assert(ValidRows == DYNAMIC || ValidCols == DYNAMIC, "this tile's valid shape is static");
    if constexpr (ValidRows == DYNAMIC) valid_rows = rows;
    if constexpr (ValidCols == DYNAMIC) valid_cols = cols;
  }

  int GetValidRow() const {
    if constexpr (ValidRows != DYNAMIC) return ValidRows;
    return valid_rows;
  }
  int GetValidCol() const {
    if constexpr (ValidCols != DYNAMIC) return ValidCols;
    return valid_cols;
  }
  // tile.set_validshape: new valid extents for a DYNAMIC tile.
  void SetValidShape(int rows, int cols) {
    if constexpr (ValidRows == DYNAMIC) valid_rows = rows;
    if constexpr (ValidCols == DYNAMIC) valid_cols = cols;
  }

  static constexpr int Index(int r, int c) { return kRowMajor ? r * Cols + c : c * Rows + r; }
  T& At(int r, int c) { return data[Index(r, c)]; }
  const T& At(int r, int c) const { return data[Index(r, c)]; }
};

template <typename T, int R, int C, int VR = R, int VC = C, PadValue P = PadValue::Null>
using TileVec = Tile<TileType::Vec, T, R, C, BLayout::RowMajor, VR, VC, SLayout::NoneBox, 512, P>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileMat = Tile<TileType::Mat, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, 512>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileLeft = Tile<TileType::Left, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, 512>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, VR, VC, SLayout::ColMajor, 512>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, 1024>;

// ---------------------------------------------------------------------------
// Global tensors: Shape<...> and Stride<...> of up to 5 dims (right-aligned;
// DYNAMIC dims are given to the constructor). The tile instructions see a
// 2-D view: rows = product of all dims but the last, cols = the last dim.
// ---------------------------------------------------------------------------
template <int... Dims>
struct Shape {
  static_assert(sizeof...(Dims) >= 1 && sizeof...(Dims) <= 5, "Shape has 1 to 5 dims");
  static constexpr int kRank = sizeof...(Dims);
  static constexpr int kDims[kRank] = {Dims...};
};

template <int... Strides>
struct Stride {
  static_assert(sizeof...(Strides) >= 1 && sizeof...(Strides) <= 5, "Stride has 1 to 5 dims");
  static constexpr int kRank = sizeof...(Strides);
  static constexpr int kDims[kRank] = {Strides...};
};

// Runtime values for a global tensor's DYNAMIC dims and strides, outermost first.
struct DynDims {
  int64_t v[5] = {0, 0, 0, 0, 0};
};

namespace detail {
// The packed stride of each dim when Stride<> is not given.
struct NoStride {};
}  // namespace detail

template <typename T, typename ShapeT, typename StrideT = detail::NoStride, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = T;
  static constexpr Layout kLayout = L;

  T* data = nullptr;
  int64_t shape[5] = {1, 1, 1, 1, 1};   // right-aligned, outermost first
  int64_t stride[5] = {0, 0, 0, 0, 1};  // elements

  GlobalTensor() = default;
  explicit GlobalTensor(T* ptr, DynDims dyn_shape = {}, DynDims dyn_stride = {}) : data(ptr) {
    constexpr int off = 5 - ShapeT::kRank;
    for (int i = 0; i < ShapeT::kRank; ++i) {
      int d = ShapeT::kDims[i];
      shape[off + i] = d == DYNAMIC ? dyn_shape.v[off + i] : d;
    }
    if constexpr (kSame<StrideT, detail::NoStride>) {
      int64_t running = 1;
      for (int i = 4; i >= 0; --i) {
        stride[i] = running;
        running *= shape[i];
      }
      if constexpr (L == Layout::DN) {
        // Column-major last two dims: [M, N] stored as N columns of M.
        stride[3] = 1;
        stride[4] = shape[3];
      }
    } else {
      constexpr int soff = 5 - StrideT::kRank;
      for (int i = 0; i < 5; ++i) stride[i] = 0;
      for (int i = 0; i < StrideT::kRank; ++i) {
        int s = StrideT::kDims[i];
        stride[soff + i] = s == DYNAMIC ? dyn_stride.v[soff + i] : s;
      }
    }
  }

  int64_t Rows() const { return shape[0] * shape[1] * shape[2] * shape[3]; }
  int64_t Cols() const { return shape[4]; }
  // Element offset of row r of the 2-D view.
  int64_t RowOffset(int64_t r) const {
    int64_t i3 = r % shape[3];
    int64_t rest = r / shape[3];
    int64_t i2 = rest % shape[2];
    rest /= shape[2];
    int64_t i1 = rest % shape[1];
    int64_t i0 = rest / shape[1];
    return i0 * stride[0] + i1 * stride[1] + i2 * stride[2] + i3 * stride[3];
  }
};

// ---------------------------------------------------------------------------
// TASSIGN: place a tile at a byte address of its space on the current core.
// ---------------------------------------------------------------------------
template <typename TileT>
inline void TASSIGN(TileT& tile, uint64_t addr, Loc loc = {}) {
  tile.data = nullptr;
  tile.addr = addr;
  SimCore* core = pypto_sim_current_core();
  tile.core = core;
  if (!core) return;
  constexpr int space = static_cast<int>(TileT::Loc);
  if (addr % kTileAlignment != 0) {
    core->Raise(FaultKind::Misaligned, "TASSIGN", loc, TileT::Loc, static_cast<int64_t>(addr),
                static_cast<int64_t>(kTileAlignment));
    return;
  }
  uint64_t cap = core->capacity[space];
  if (!core->buffer[space] || addr > cap || TileT::kBytes > cap - addr) {
    core->Raise(FaultKind::OutOfCapacity, "TASSIGN", loc, TileT::Loc, static_cast<int64_t>(addr + TileT::kBytes),
                static_cast<int64_t>(cap));
    return;
  }
  tile.data = reinterpret_cast<typename TileT::DType*>(core->buffer[space] + addr);
}

}  // namespace pto
