#include "cxx_spelling.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

#include "pypto/ir/tile_storage.h"
#include "pypto/support/strings.h"

namespace pypto::npu {

using ir::DataType;
using ir::MemorySpace;

namespace {

// C++ keywords plus the names every kernel source defines or uses unqualified.
const std::set<std::string>& ReservedNames() {
  static const std::set<std::string> names = {
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char", "class", "const",
      "constexpr", "continue", "decltype", "default", "delete", "do", "double", "else", "enum", "explicit",
      "extern", "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace",
      "new", "noexcept", "not", "nullptr", "operator", "or", "private", "protected", "public", "register",
      "return", "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw", "true",
      "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "xor",
      // the entry's parameters, the ISA's namespace and helpers a kernel calls
      "args", "pto", "pypto", "kernel_entry", "Tile", "TileLeft", "TileRight", "TileAcc", "TileType", "BLayout",
      "SLayout", "PadValue", "GlobalTensor", "Shape", "Stride", "DYNAMIC", "half", "bfloat16_t", "main",
      "PyptoRtTensorDesc", "get_block_idx", "get_block_num", "get_sub_block_id", "set_flag", "wait_flag",
      "pipe_barrier"};
  return names;
}

std::string Sanitize(const std::string& hint) {
  std::string out;
  for (char c : hint) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out = "v_" + out;
  return out;
}

bool Special(double v) { return std::isnan(v) || std::isinf(v); }

}  // namespace

NameTable::NameTable() : used_(ReservedNames()) {}

std::string NameTable::Fresh(const std::string& hint) {
  std::string base = Sanitize(hint);
  std::string name = base;
  for (int i = 1; used_.count(name) != 0; ++i) name = base + "_" + std::to_string(i);
  used_.insert(name);
  return name;
}

std::optional<std::string> ElementType(DataType dtype) {
  switch (dtype.code()) {
    case ir::DataTypeCode::BOOL: return "bool";
    case ir::DataTypeCode::INT8: return "int8_t";
    case ir::DataTypeCode::INT16: return "int16_t";
    case ir::DataTypeCode::INT32: return "int32_t";
    case ir::DataTypeCode::INT64: return "int64_t";
    case ir::DataTypeCode::INDEX: return "int64_t";
    case ir::DataTypeCode::UINT8: return "uint8_t";
    case ir::DataTypeCode::UINT16: return "uint16_t";
    case ir::DataTypeCode::UINT32: return "uint32_t";
    case ir::DataTypeCode::UINT64: return "uint64_t";
    case ir::DataTypeCode::FP16: return "half";
    case ir::DataTypeCode::BF16: return "bfloat16_t";
    case ir::DataTypeCode::FP32: return "float";
    case ir::DataTypeCode::FP64: return "double";
    default: return std::nullopt;
  }
}

DataType ComputeDType(DataType element) {
  if (element == DataType::FP16 || element == DataType::BF16) return DataType::FP32;
  return element;
}

std::optional<std::string> ScalarCxxType(DataType dtype) { return ElementType(ComputeDType(dtype)); }

std::string IntLiteral(int64_t value, DataType dtype) {
  if (dtype.is_bool()) return value != 0 ? "true" : "false";
  if (dtype.is_float()) return FloatLiteral(static_cast<double>(value), dtype);
  // INT64_MIN has no literal spelling: -9223372036854775807 - 1.
  if (value == INT64_MIN) return "(-9223372036854775807LL - 1)";
  std::string text = std::to_string(value);
  if (dtype.is_unsigned_int()) text += "u";
  if (dtype.bits() == 64 && (value > INT32_MAX || value < INT32_MIN)) text += "LL";
  return text;
}

std::string FloatLiteral(double value, DataType dtype) {
  bool single = ComputeDType(dtype) != DataType::FP64;
  if (dtype.is_int()) return IntLiteral(static_cast<int64_t>(value), dtype);
  if (Special(value)) {
    std::string f = single ? "f" : "";
    if (std::isnan(value)) return "__builtin_nan" + f + "(\"\")";
    return std::string(value < 0 ? "-" : "") + "__builtin_inf" + f + "()";
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), single ? "%.9g" : "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return single ? text + "f" : text;
}

std::string StringLiteral(const std::string& text) {
  return QuotedLiteral(text, '"');
}

const char* TileTypeName(MemorySpace space) {
  switch (space) {
    case MemorySpace::Vec: return "Vec";
    case MemorySpace::Mat: return "Mat";
    case MemorySpace::Left: return "Left";
    case MemorySpace::Right: return "Right";
    case MemorySpace::Acc: return "Acc";
    case MemorySpace::Bias: return "Bias";
    case MemorySpace::DDR: return nullptr;
  }
  return nullptr;
}

const char* PadName(ir::PadValue pad) {
  switch (pad) {
    case ir::PadValue::Null: return "Null";
    case ir::PadValue::Zero: return "Zero";
    case ir::PadValue::Max: return "Max";
    case ir::PadValue::Min: return "Min";
  }
  return "Null";
}

const char* RoundModeName(int64_t mode) {
  static const char* const kNames[] = {"CAST_NONE", "CAST_RINT",  "CAST_ROUND", "CAST_FLOOR",
                                       "CAST_CEIL", "CAST_TRUNC", "CAST_ODD"};
  return mode >= 0 && mode < 7 ? kNames[mode] : nullptr;
}

const char* CmpModeName(int64_t mode) {
  static const char* const kNames[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  return mode >= 0 && mode < 6 ? kNames[mode] : nullptr;
}

namespace {

// The ISA's shorthands for the cube's operand tiles in their default layouts.
const char* Shorthand(MemorySpace space) {
  switch (space) {
    case MemorySpace::Left: return "TileLeft";
    case MemorySpace::Right: return "TileRight";
    case MemorySpace::Acc: return "TileAcc";
    default: return nullptr;
  }
}

const char* BLayoutName(ir::TileLayout layout) { return layout == ir::TileLayout::ColMajor ? "ColMajor" : "RowMajor"; }

const char* SLayoutName(ir::TileLayout layout) {
  switch (layout) {
    case ir::TileLayout::RowMajor: return "RowMajor";
    case ir::TileLayout::ColMajor: return "ColMajor";
    case ir::TileLayout::NoneBox: return "NoneBox";
  }
  return "NoneBox";
}

std::string ExtentText(const ir::ExprPtr& extent) {
  auto value = ir::AsConstInt(extent);
  return value ? std::to_string(*value) : "DYNAMIC";
}


}  // namespace

TileSpellingResult SpellTile(const ir::TileType& type, std::optional<ir::PadValue> pad_override) {
  if (!type.memory_space || *type.memory_space == MemorySpace::DDR) {
    return {std::nullopt, "the tile has no on-chip memory space (run InferTileMemorySpace)"};
  }
  if (type.rank() < 1 || type.rank() > 2) {
    return {std::nullopt, "the tile has rank " + std::to_string(type.rank()) +
                              "; the ISA's tiles are 2-D (run FlattenTileNdTo2D)"};
  }
  auto shape = ir::StaticShape(type.shape);
  if (!shape) return {std::nullopt, "the tile's shape is not static; tiles have static extents"};
  auto element = ElementType(type.dtype);
  if (!element) return {std::nullopt, std::string("the ISA has no tiles of dtype ") + type.dtype.name()};

  bool one_row = type.rank() == 1;
  int64_t rows = one_row ? 1 : (*shape)[0];
  int64_t cols = one_row ? (*shape)[0] : (*shape)[1];
  TileSpelling spelling;
  if (type.valid_shape.empty()) {
    spelling.valid_rows = ir::Int(rows);
    spelling.valid_cols = ir::Int(cols);
  } else {
    spelling.valid_rows = one_row ? ir::Int(1) : type.valid_shape[0];
    spelling.valid_cols = one_row ? type.valid_shape[0] : type.valid_shape[1];
  }
  std::string vr = ExtentText(spelling.valid_rows);
  std::string vc = ExtentText(spelling.valid_cols);
  // The ISA's tiles take a dynamic valid shape as both extents (Tile(rows, cols), SetValidShape).
  spelling.dynamic_valid = vr == "DYNAMIC" || vc == "DYNAMIC";
  if (spelling.dynamic_valid) vr = vc = "DYNAMIC";

  ir::TileLayoutDefaults defaults = ir::DefaultTileLayout(*type.memory_space);
  ir::TileLayout blayout = type.blayout && *type.blayout != ir::TileLayout::NoneBox ? *type.blayout : defaults.blayout;
  std::vector<int64_t> logical = {rows, cols};
  if (ir::StorageOrderOf(type, logical) == ir::TileStorageOrder::kColMajor) blayout = ir::TileLayout::ColMajor;
  ir::TileLayout slayout = type.slayout ? *type.slayout : defaults.slayout;
  int64_t fractal = type.fractal != 0 ? type.fractal : defaults.fractal;
  ir::PadValue pad = pad_override ? *pad_override : type.pad;
  // The buffer holds whole 32-byte lines (ir::StorageShape); the tile's own
  // extents are its valid shape within them.
  std::vector<int64_t> storage = ir::StorageShape(type, logical);
  bool full_valid = vr == std::to_string(storage[0]) && vc == std::to_string(storage[1]);
  std::string dims = *element + ", " + std::to_string(storage[0]) + ", " + std::to_string(storage[1]);

  bool default_layout = blayout == defaults.blayout && slayout == defaults.slayout && fractal == defaults.fractal;
  const char* shorthand = Shorthand(*type.memory_space);
  if (shorthand && default_layout && pad == ir::PadValue::Null) {
    std::string text = std::string(shorthand) + "<" + dims;
    if (!full_valid) text += ", " + vr + ", " + vc;
    spelling.type = text + ">";
    return {spelling, ""};
  }
  spelling.type = std::string("Tile<TileType::") + TileTypeName(*type.memory_space) + ", " + dims + ", BLayout::" +
                  BLayoutName(blayout) + ", " + vr + ", " + vc + ", SLayout::" + SLayoutName(slayout) + ", " +
                  std::to_string(fractal) + ", PadValue::" + PadName(pad) + ">";
  return {spelling, ""};
}

std::optional<ir::Ref<ir::TileType>> ColumnAsRow(const ir::TileType& type) {
  if (type.rank() != 2 || type.memory_space != MemorySpace::Vec) return std::nullopt;
  auto shape = ir::StaticShape(type.shape);
  if (!shape || (*shape)[1] != 1 || (*shape)[0] <= 1 ||
      ir::StorageOrderOf(type, *shape) != ir::TileStorageOrder::kColMajor) {
    return std::nullopt;
  }
  if (type.dtype.StorageBytes((*shape)[0]) % 32 != 0) return std::nullopt;
  auto row = std::make_shared<ir::TileType>(type);
  row->shape = {ir::Int(1), type.shape[0]};
  if (!type.valid_shape.empty()) row->valid_shape = {ir::Int(1), type.valid_shape[0]};
  row->blayout = ir::TileLayout::RowMajor;
  return row;
}

}  // namespace pypto::npu
