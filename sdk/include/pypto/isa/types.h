// Element types of the simulated tile ISA. Freestanding: kernels compiled in
// process must not pay for libstdc++ headers, so integer types come from the
// compiler's predefined macros and math from __builtin_* functions.
#pragma once

namespace pto {

using int8_t = __INT8_TYPE__;
using int16_t = __INT16_TYPE__;
using int32_t = __INT32_TYPE__;
using int64_t = __INT64_TYPE__;
using uint8_t = __UINT8_TYPE__;
using uint16_t = __UINT16_TYPE__;
using uint32_t = __UINT32_TYPE__;
using uint64_t = __UINT64_TYPE__;
using size_t = __SIZE_TYPE__;

template <typename To, typename From>
inline To BitCast(const From& from) {
  static_assert(sizeof(To) == sizeof(From), "BitCast needs equal sizes");
  return __builtin_bit_cast(To, from);
}

// IEEE binary16. Conversions round to nearest, ties to even, as torch's
// tensor.to(torch.float16) does; NaN keeps its sign and top payload bits.
struct half {
  uint16_t bits;

  half() = default;
  constexpr explicit half(uint16_t raw, int) : bits(raw) {}
  half(float f) : bits(FromFloat(f)) {}
  operator float() const { return ToFloat(bits); }

  static half FromBits(uint16_t raw) { return half(raw, 0); }

  static uint16_t FromFloat(float f) {
#if defined(__F16C__) && defined(__FLT16_MANT_DIG__)
    // The hardware conversion (vcvtps2ph) rounds the same way and vectorizes.
    return BitCast<uint16_t>(static_cast<_Float16>(f));
#else
    return FromFloatBits(f);
#endif
  }

  static uint16_t FromFloatBits(float f) {
    uint32_t x = BitCast<uint32_t>(f);
    uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
    uint32_t abs = x & 0x7FFFFFFFu;
    if (abs >= 0x7F800000u) {
      if (abs == 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u);
      return static_cast<uint16_t>(sign | 0x7E00u | ((abs >> 13) & 0x3FFu));
    }
    if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to >= 65520: inf
    if (abs < 0x38800000u) {
      // Result is subnormal (or zero): align to 2^-24 units, round to even.
      if (abs < 0x33000000u) return sign;  // below half of the smallest subnormal
      uint32_t exp = abs >> 23;
      uint32_t mant = (abs & 0x7FFFFFu) | 0x800000u;
      uint32_t shift = 126u - exp;  // 113 - exp + 13
      uint32_t q = mant >> shift;
      uint32_t rem = mant & ((1u << shift) - 1u);
      uint32_t halfway = 1u << (shift - 1u);
      if (rem > halfway || (rem == halfway && (q & 1u))) ++q;
      return static_cast<uint16_t>(sign | q);
    }
    uint32_t rebased = abs - 0x38000000u;  // exponent bias 127 -> 15
    uint32_t q = rebased >> 13;
    uint32_t rem = rebased & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }

  static float ToFloat(uint16_t h) {
#if defined(__F16C__) && defined(__FLT16_MANT_DIG__)
    return static_cast<float>(BitCast<_Float16>(h));
#else
    return ToFloatBits(h);
#endif
  }

  static float ToFloatBits(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t mant = h & 0x3FFu;
    if (exp == 0x1Fu) return BitCast<float>(sign | 0x7F800000u | (mant << 13));
    if (exp != 0) return BitCast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
    if (mant == 0) return BitCast<float>(sign);
    // Subnormal: exact as mant * 2^-24.
    float magnitude = static_cast<float>(mant) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
};

// bfloat16: the top half of a binary32. Round to nearest even; NaN becomes
// a quiet NaN with its sign, as torch's tensor.to(torch.bfloat16) does.
struct bfloat16 {
  uint16_t bits;

  bfloat16() = default;
  constexpr explicit bfloat16(uint16_t raw, int) : bits(raw) {}
  bfloat16(float f) : bits(FromFloat(f)) {}
  operator float() const { return ToFloat(bits); }

  static bfloat16 FromBits(uint16_t raw) { return bfloat16(raw, 0); }

  static uint16_t FromFloat(float f) {
    uint32_t x = BitCast<uint32_t>(f);
    if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);
    uint32_t rounding = 0x7FFFu + ((x >> 16) & 1u);
    return static_cast<uint16_t>((x + rounding) >> 16);
  }

  static float ToFloat(uint16_t b) { return BitCast<float>(static_cast<uint32_t>(b) << 16); }
};

// The ISA's spelling of the type.
using bfloat16_t = bfloat16;

// Small traits in place of <type_traits> / <limits>.
template <typename A, typename B>
inline constexpr bool kSame = false;
template <typename A>
inline constexpr bool kSame<A, A> = true;

template <typename T>
inline constexpr bool kIsFloat = kSame<T, float> || kSame<T, double> || kSame<T, half> || kSame<T, bfloat16>;
template <typename T>
inline constexpr bool kIsSigned = kIsFloat<T> || kSame<T, int8_t> || kSame<T, int16_t> || kSame<T, int32_t> ||
                                  kSame<T, int64_t>;

// The type arithmetic is done in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
struct ComputeOf {
  using type = T;
};
template <>
struct ComputeOf<half> {
  using type = float;
};
template <>
struct ComputeOf<bfloat16> {
  using type = float;
};
template <typename T>
using Compute = typename ComputeOf<T>::type;

template <typename T>
struct Limits {
  static constexpr T Max() {
    if constexpr (kSame<T, bool>) {
      return true;
    } else if constexpr (kIsSigned<T>) {
      return static_cast<T>(~(static_cast<__UINT64_TYPE__>(1) << (sizeof(T) * 8 - 1)));
    } else {
      return static_cast<T>(~static_cast<T>(0));
    }
  }
  static constexpr T Min() {
    if constexpr (kSame<T, bool>) {
      return false;
    } else if constexpr (kIsSigned<T>) {
      return static_cast<T>(-Max() - 1);
    } else {
      return 0;
    }
  }
};
template <>
struct Limits<float> {
  static constexpr float Max() { return __builtin_huge_valf(); }
  static constexpr float Min() { return -__builtin_huge_valf(); }
};
template <>
struct Limits<double> {
  static constexpr double Max() { return __builtin_huge_val(); }
  static constexpr double Min() { return -__builtin_huge_val(); }
};
template <>
struct Limits<half> {
  static half Max() { return half::FromBits(0x7C00u); }
  static half Min() { return half::FromBits(0xFC00u); }
};
template <>
struct Limits<bfloat16> {
  static bfloat16 Max() { return bfloat16::FromBits(0x7F80u); }
  static bfloat16 Min() { return bfloat16::FromBits(0xFF80u); }
};

}  // namespace pto
