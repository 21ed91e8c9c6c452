// Element data types. Codes are stable (they appear in serialized IR).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pypto::ir {

// X(enum name, code, bits, kind) where kind is b(ool) s(igned int) u(nsigned int) f(loat) o(paque)
#define PYPTO_DTYPE_LIST(X) \
  X(BOOL, 0x00, 8, b)       \
  X(INT4, 0x10, 4, s)       \
  X(INT8, 0x11, 8, s)       \
  X(INT16, 0x12, 16, s)     \
  X(INT32, 0x13, 32, s)     \
  X(INT64, 0x14, 64, s)     \
  X(INDEX, 0x15, 64, s)     \
  X(UINT4, 0x20, 4, u)      \
  X(UINT8, 0x21, 8, u)      \
  X(UINT16, 0x22, 16, u)    \
  X(UINT32, 0x23, 32, u)    \
  X(UINT64, 0x24, 64, u)    \
  X(FP4, 0x30, 4, f)        \
  X(FP8E4M3FN, 0x31, 8, f)  \
  X(FP8E5M2, 0x32, 8, f)    \
  X(FP16, 0x33, 16, f)      \
  X(FP32, 0x34, 32, f)      \
  X(FP64, 0x35, 64, f)      \
  X(FP8E8M0, 0x36, 8, f)    \
  X(BF16, 0x40, 16, f)      \
  X(HF4, 0x41, 4, f)        \
  X(HF8, 0x42, 8, f)        \
  X(TASK_ID, 0x50, 64, o)

enum class DataTypeCode : uint8_t {
#define PYPTO_X(name, code, bits, kind) name = code,
  PYPTO_DTYPE_LIST(PYPTO_X)
#undef PYPTO_X
};

class DataType {
 public:
#define PYPTO_X(name, code, bits, kind) static const DataType name;
  PYPTO_DTYPE_LIST(PYPTO_X)
#undef PYPTO_X

  constexpr DataType() : code_(DataTypeCode::FP32) {}
  constexpr explicit DataType(DataTypeCode code) : code_(code) {}

  constexpr DataTypeCode code() const { return code_; }
  int bits() const;
  // Bytes one element occupies when stored alone; 4-bit types round up to 1.
  // Use StorageBytes() for arrays: 4-bit types pack two elements per byte.
  int get_byte() const { return (bits() + 7) / 8; }
  // Bytes of `count` packed elements: 4-bit types pack two per byte, low nibble
  // first, an odd count rounding up to a whole byte.
  int64_t StorageBytes(int64_t count) const { return (count * bits() + 7) / 8; }
  const char* name() const;

  bool is_bool() const;
  bool is_int() const;       // signed or unsigned integer, including INDEX
  bool is_signed_int() const;
  bool is_unsigned_int() const;
  bool is_float() const;
  bool is_sub_byte() const { return bits() < 8; }
  bool is_index() const { return code_ == DataTypeCode::INDEX; }
  // Integer-like scalars usable as shapes, offsets and loop bounds.
  bool is_index_like() const { return is_int(); }

  static std::optional<DataType> FromName(const std::string& name);
  static std::optional<DataType> FromCode(int code);
  static const std::vector<DataType>& All();

  constexpr bool operator==(const DataType& o) const { return code_ == o.code_; }
  constexpr bool operator!=(const DataType& o) const { return code_ != o.code_; }

 private:
  DataTypeCode code_;
};

#define PYPTO_X(name, code, bits, kind) inline constexpr DataType DataType::name{DataTypeCode::name};
PYPTO_DTYPE_LIST(PYPTO_X)
#undef PYPTO_X

// NumPy-style promotion for binary tensor ops: float beats int, wider beats
// narrower, signed wins at equal width; BOOL loses to everything.
DataType PromoteTypes(DataType a, DataType b);

}  // namespace pypto::ir
