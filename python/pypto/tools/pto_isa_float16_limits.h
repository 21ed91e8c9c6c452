// std::numeric_limits<_Float16> for libstdc++ before GCC 13, which has none:
// the primary template then answers has_infinity == false and max() == 0, so
// pto-isa's CPU TFILLPAD pads a half tile's PadValue::Max / Min with 0 instead
// of +inf / -inf. pto_isa_conformance force-includes this header into kernels
// compiled against pto-isa with such a compiler; it changes no pto-isa file.
#pragma once

#include <limits>

template <>
struct std::numeric_limits<_Float16> {
  // From bit patterns: strict -std=c++20 has no F16 literal suffix for the __FLT16_*__ macros.
  static constexpr _Float16 Bits(unsigned short bits) noexcept { return __builtin_bit_cast(_Float16, bits); }
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr int digits = __FLT16_MANT_DIG__;
  static constexpr int radix = 2;
  static constexpr _Float16 min() noexcept { return Bits(0x0400); }
  static constexpr _Float16 max() noexcept { return Bits(0x7BFF); }
  static constexpr _Float16 lowest() noexcept { return Bits(0xFBFF); }
  static constexpr _Float16 epsilon() noexcept { return Bits(0x1400); }
  static constexpr _Float16 denorm_min() noexcept { return Bits(0x0001); }
  static constexpr _Float16 infinity() noexcept { return Bits(0x7C00); }
  static constexpr _Float16 quiet_NaN() noexcept { return Bits(0x7E00); }
  static constexpr _Float16 signaling_NaN() noexcept { return Bits(0x7D00); }
};
