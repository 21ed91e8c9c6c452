// How IR names, dtypes, literals and tile types are spelled in a generated
// kernel's C++ (against sdk/include/pypto/isa).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::npu {

// C++ identifiers for IR variables: the user's names made valid (letters,
// digits, '_'), never a C++ keyword or a name the kernel reserves, and unique
// within one kernel (a clash gets _1, _2, ...).
class NameTable {
 public:
  NameTable();
  std::string Fresh(const std::string& hint);

 private:
  std::set<std::string> used_;
};

// The element type of a tile or tensor ("float", "half", "int32_t", ...);
// nullopt for dtypes the tile ISA has no type for (4-bit, FP8, TASK_ID).
std::optional<std::string> ElementType(ir::DataType dtype);
// The C++ type of a scalar variable; half / bf16 scalars compute in float.
std::optional<std::string> ScalarCxxType(ir::DataType dtype);
// The type a tile instruction takes its scalar operand in (pto::Compute<T>).
ir::DataType ComputeDType(ir::DataType element);

// A literal of `dtype`: 3, 1.5f, true, __builtin_inff().
std::string IntLiteral(int64_t value, ir::DataType dtype);
std::string FloatLiteral(double value, ir::DataType dtype);

// A C string literal holding `text`.
std::string StringLiteral(const std::string& text);

const char* TileTypeName(ir::MemorySpace space);  // "Vec", "Mat", ...
const char* PadName(ir::PadValue pad);            // "Null", "Zero", ...
const char* RoundModeName(int64_t mode);          // "CAST_ROUND"; nullptr outside 0..6
const char* CmpModeName(int64_t mode);            // "LT"; nullptr outside 0..5

// A tile type as the ISA spells it. Valid extents that are not constants
// are DYNAMIC in the type; their run-time values come from `valid_exprs`.
struct TileSpelling {
  std::string type;                    // Tile<TileType::Vec, float, 32, 128, ...> or TileLeft<half, 64, 64>
  bool dynamic_valid = false;          // the declaration passes (valid_rows, valid_cols)
  ir::ExprPtr valid_rows, valid_cols;  // the IR's valid extents (or the static ones)
};

// The 2-D tile of `type` (rank 1 is one row); an error message instead when
// the ISA cannot hold it (rank > 2, dynamic static shape, no memory space).
struct TileSpellingResult {
  std::optional<TileSpelling> spelling;
  std::string problem;
};
TileSpellingResult SpellTile(const ir::TileType& type, std::optional<ir::PadValue> pad_override = std::nullopt);

// A plain Vec column vector [M, 1] (M > 1), which SpellTile makes column-major,
// as the [1, M] row-major tile over the same bytes: the ISA's tile-scalar
// instructions take row-major tiles only. Empty for any other tile, and for a
// column whose M elements are not whole 32-byte blocks (no row-major tile has
// such a row).
std::optional<ir::Ref<ir::TileType>> ColumnAsRow(const ir::TileType& type);

}  // namespace pypto::npu
