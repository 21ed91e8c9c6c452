// Tiles (typed windows of an on-chip buffer) and global tensors (views of
// device memory), in the shape of the PTO tile ISA's C++ types.
#pragma once

#include "pypto/isa/hazard.h"
#include "pypto/isa/sim_core.h"
#include "pypto/isa/types.h"

namespace pto {

// A valid extent, dim or stride given at run time instead of as a template argument.
inline constexpr int DYNAMIC = -1;

enum class BLayout : int { RowMajor = 0, ColMajor = 1 };
enum class SLayout : int { NoneBox = 0, RowMajor = 1, ColMajor = 2 };
enum class PadValue : uint64_t { Null = 0, Zero = 1, Max = 2, Min = 3 };
enum class CompactMode : int { Null = 0, Normal = 1, RowPlusOne = 2, RowAlignedPadding = 3 };
// How a global tensor's 5 dims map onto a tile. The simulator reads every
// tensor as ND through its strides; the code generator emits ND only.
enum class Layout : int { ND = 0, DN = 1, NZ = 2 };

namespace TileConfig {
inline constexpr int fractalABSize = 512;
inline constexpr int fractalCSize = 1024;
}  // namespace TileConfig

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
// Tile<Loc, T, Rows, Cols, BLayout, ValidRows, ValidCols, SLayout, Fractal, Pad, Compact>
//
// The PTO-ISA tile (pto/common/pto_tile.hpp), same parameters in the same
// order. Rows x Cols elements at a byte address of the space's buffer
// (TASSIGN). Element (r, c) sits at r * Cols + c (RowMajor) or c * Rows + r
// (ColMajor). Only the valid region [0, ValidRows) x [0, ValidCols) holds
// data; an instruction that writes a tile whose Pad is not Null fills the rest
// with the pad value (Zero: 0, Max: +inf / the type's maximum, Min: -inf / the
// type's minimum). ValidRows / ValidCols may be DYNAMIC: the constructor takes
// them. The simulator keeps the plain block layout for every SLayout: no
// instruction shows the fractal order, only where data enters or leaves a tile.
// ---------------------------------------------------------------------------
template <TileType Space, typename T, int Rows, int Cols, BLayout BL = BLayout::RowMajor, int ValidRows = Rows,
          int ValidCols = Cols, SLayout SL = SLayout::NoneBox, int Fractal = TileConfig::fractalABSize,
          PadValue Pad = PadValue::Null, CompactMode Compact = CompactMode::Null>
struct Tile {
  static_assert(Rows > 0 && Cols > 0, "a tile has positive static extents");
  static_assert(ValidRows == DYNAMIC || (ValidRows >= 0 && ValidRows <= Rows), "ValidRows must be in 0..Rows");
  static_assert(ValidCols == DYNAMIC || (ValidCols >= 0 && ValidCols <= Cols), "ValidCols must be in 0..Cols");
  static_assert(static_cast<int>(Space) < kNumTileTypes, "the simulator has no buffer for this TileType");

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
  // The ISA's names for the same facts.
  static constexpr int ValidRow = ValidRows;
  static constexpr int ValidCol = ValidCols;
  static constexpr int Numel = Rows * Cols;
  static constexpr BLayout BFractal = BL;
  static constexpr SLayout SFractal = SL;
  static constexpr PadValue PadVal = Pad;

  T* data_ = nullptr;
  SimCore* core = nullptr;
  uint64_t addr = 0;
  int valid_rows = ValidRows == DYNAMIC ? Rows : ValidRows;
  int valid_cols = ValidCols == DYNAMIC ? Cols : ValidCols;

  Tile() = default;
  // As in the ISA: a tile with a dynamic valid shape takes both extents.
  Tile(unsigned rows, unsigned cols) {
    static_assert(ValidRows == DYNAMIC && ValidCols == DYNAMIC, "this constructor is for Tile<..., DYNAMIC, DYNAMIC>");
    valid_rows = static_cast<int>(rows);
    valid_cols = static_cast<int>(cols);
  }

  int GetValidRow() const {
    if constexpr (ValidRows != DYNAMIC) return ValidRows;
    return valid_rows;
  }
  int GetValidCol() const {
    if constexpr (ValidCols != DYNAMIC) return ValidCols;
    return valid_cols;
  }
  // New valid extents for a tile whose valid shape is DYNAMIC.
  void SetValidShape(unsigned rows, unsigned cols) {
    static_assert(ValidRows == DYNAMIC && ValidCols == DYNAMIC, "SetValidShape is for Tile<..., DYNAMIC, DYNAMIC>");
    valid_rows = static_cast<int>(rows);
    valid_cols = static_cast<int>(cols);
  }
  void SetValidRow(unsigned rows) {
    static_assert(ValidRows == DYNAMIC, "SetValidRow is for a tile whose ValidRows is DYNAMIC");
    valid_rows = static_cast<int>(rows);
  }
  void SetValidCol(unsigned cols) {
    static_assert(ValidCols == DYNAMIC, "SetValidCol is for a tile whose ValidCols is DYNAMIC");
    valid_cols = static_cast<int>(cols);
  }

  // One element by its offset in the block, read or written by the scalar
  // unit (PIPE_S), as the ISA's Tile::GetValue / SetValue; an offset outside
  // the tile is a fault of the access, which then reads 0 / writes nothing.
  T GetValue(uint32_t offset) const {
    if (!ScalarAccess(offset, false, "GetValue")) return static_cast<T>(0.0f);
    return data_[offset];
  }
  void SetValue(uint32_t offset, T value) {
    if (ScalarAccess(offset, true, "SetValue")) data_[offset] = value;
  }

  // The tile's storage, as the ISA's CPU simulation gives it (element 0 of the block).
  T*& data() { return data_; }
  T* const& data() const { return data_; }

  static constexpr int Index(int r, int c) { return kRowMajor ? r * Cols + c : c * Rows + r; }

 private:
  bool ScalarAccess(uint32_t offset, bool write, const char* name) const {
    SimCore* at = core != nullptr ? core : pypto_sim_current_core();
    if (data_ == nullptr) {
      if (at != nullptr) at->Raise(FaultKind::Unassigned, name, Loc, static_cast<int64_t>(addr), 0);
      return false;
    }
    if (offset >= static_cast<uint32_t>(kSize)) {
      if (at != nullptr) at->Raise(FaultKind::ShapeMismatch, name, Loc, static_cast<int64_t>(offset) + 1, kSize);
      return false;
    }
    if (kCheckPipeHazards && at != nullptr && at->hazards != nullptr) {
      MemAccess a;
      a.space = static_cast<int32_t>(Space);
      a.write = write ? 1 : 0;
      a.base = addr + static_cast<uint64_t>(offset) * sizeof(T);
      a.width = sizeof(T);
      at->hazards->Access(*at, name, kHazardPipeS, &a, 1);
    }
    return true;
  }

 public:
  T& At(int r, int c) { return data_[Index(r, c)]; }
  const T& At(int r, int c) const { return data_[Index(r, c)]; }
};

// The ISA's shorthands for the cube's operand tiles.
template <typename T, int R, int C, int VR = R, int VC = C>
using TileLeft = Tile<TileType::Left, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, TileConfig::fractalABSize>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileRight = Tile<TileType::Right, T, R, C, BLayout::RowMajor, VR, VC, SLayout::ColMajor, TileConfig::fractalABSize>;
template <typename T, int R, int C, int VR = R, int VC = C>
using TileAcc = Tile<TileType::Acc, T, R, C, BLayout::ColMajor, VR, VC, SLayout::RowMajor, TileConfig::fractalCSize>;

// ---------------------------------------------------------------------------
// Global tensors (pto/common/pto_tile.hpp): Shape<N1..N5> and Stride<S1..S5>
// are always five dims, outermost first; a DYNAMIC entry takes its value from
// the constructor. The tile instructions see the ND tensor as a 2-D view:
// rows = the product of dims 0..3, cols = dim 4.
// ---------------------------------------------------------------------------
namespace detail {

// Five int64 values, the static ones from the template and the DYNAMIC ones
// from a constructor: all five, or exactly one per DYNAMIC entry, in order.
template <int64_t N1, int64_t N2, int64_t N3, int64_t N4, int64_t N5>
struct FiveDims {
  static constexpr int64_t kStatic[5] = {N1, N2, N3, N4, N5};
  static constexpr int kDynamic = (N1 == DYNAMIC) + (N2 == DYNAMIC) + (N3 == DYNAMIC) + (N4 == DYNAMIC) + (N5 == DYNAMIC);
  int64_t v[5] = {N1 == DYNAMIC ? 1 : N1, N2 == DYNAMIC ? 1 : N2, N3 == DYNAMIC ? 1 : N3, N4 == DYNAMIC ? 1 : N4,
                  N5 == DYNAMIC ? 1 : N5};

  FiveDims() = default;
  FiveDims(int64_t n1, int64_t n2, int64_t n3, int64_t n4, int64_t n5) {
    const int64_t given[5] = {n1, n2, n3, n4, n5};
    for (int i = 0; i < 5; ++i) {
      if (kStatic[i] == DYNAMIC) v[i] = given[i];
    }
  }
  template <typename... Values>
    requires(sizeof...(Values) >= 1 && sizeof...(Values) <= 4)
  explicit FiveDims(Values... values) {
    static_assert(sizeof...(Values) == kDynamic, "give one value per DYNAMIC entry, or all five");
    const int64_t given[sizeof...(Values)] = {static_cast<int64_t>(values)...};
    int next = 0;
    for (int i = 0; i < 5; ++i) {
      if (kStatic[i] == DYNAMIC) v[i] = given[next++];
    }
  }
};

}  // namespace detail

template <int64_t N1 = DYNAMIC, int64_t N2 = DYNAMIC, int64_t N3 = DYNAMIC, int64_t N4 = DYNAMIC,
          int64_t N5 = DYNAMIC>
struct Shape : detail::FiveDims<N1, N2, N3, N4, N5> {
  using detail::FiveDims<N1, N2, N3, N4, N5>::FiveDims;
};

template <int64_t S1 = DYNAMIC, int64_t S2 = DYNAMIC, int64_t S3 = DYNAMIC, int64_t S4 = DYNAMIC,
          int64_t S5 = DYNAMIC>
struct Stride : detail::FiveDims<S1, S2, S3, S4, S5> {
  using detail::FiveDims<S1, S2, S3, S4, S5>::FiveDims;
};

template <typename T, typename ShapeT, typename StrideT, Layout L = Layout::ND>
struct GlobalTensor {
  using DType = T;
  using Shape = ShapeT;
  using Stride = StrideT;
  static constexpr Layout layout = L;

  T* data_ = nullptr;
  int64_t shape[5] = {1, 1, 1, 1, 1};   // outermost first
  int64_t stride[5] = {0, 0, 0, 0, 1};  // elements

  GlobalTensor() = default;
  explicit GlobalTensor(T* data, const ShapeT& dims = ShapeT(), const StrideT& strides = StrideT()) : data_(data) {
    for (int i = 0; i < 5; ++i) {
      shape[i] = dims.v[i];
      stride[i] = strides.v[i];
    }
  }

  T* data() const { return data_; }
  int64_t GetShape(int dim) const { return shape[dim]; }
  int64_t GetStride(int dim) const { return stride[dim]; }

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
inline void TASSIGN(TileT& tile, uint64_t addr) {
  tile.data_ = nullptr;
  tile.addr = addr;
  SimCore* core = pypto_sim_current_core();
  tile.core = core;
  if (!core) return;
  constexpr int space = static_cast<int>(TileT::Loc);
  if (addr % kTileAlignment != 0) {
    core->Raise(FaultKind::Misaligned, "TASSIGN", TileT::Loc, static_cast<int64_t>(addr),
                static_cast<int64_t>(kTileAlignment));
    return;
  }
  uint64_t cap = core->capacity[space];
  if (!core->buffer[space] || addr > cap || TileT::kBytes > cap - addr) {
    core->Raise(FaultKind::OutOfCapacity, "TASSIGN", TileT::Loc, static_cast<int64_t>(addr + TileT::kBytes),
                static_cast<int64_t>(cap));
    return;
  }
  tile.data_ = reinterpret_cast<typename TileT::DType*>(core->buffer[space] + addr);
}

}  // namespace pto
