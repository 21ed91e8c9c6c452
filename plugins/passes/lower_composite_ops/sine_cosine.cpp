// tile.sin and tile.cos from multiplies, adds and casts: the argument is
// reduced to |t| <= pi/2 around a multiple of pi (Cody-Waite), and sin t is
// a polynomial there.
#include <cstdint>
#include <optional>

#include "lowering_builder.h"
#include "pypto/ir/type.h"

namespace pypto::passes {

using ir::DataType;
using ir::ExprPtr;

namespace {

// pi = kPiHead + kPiMid + kPiTail. The first two parts have 11 significant
// bits, so m * part is exact in FP32 for every multiple |m| < 2^12 of pi
// (|x| < 12868) and the reduction x - m * pi rounds only in the tail.
constexpr double kPiHead = 0x1.92p+1;
constexpr double kPiMid = 0x1.fb4p-11;
constexpr double kPiTail = 0x1.4442d2p-23;
constexpr double kInvPi = 0x1.45f306p-2;  // 1/pi rounded to FP32

// sin t = t * (1 + t^2 * (c3 + t^2 * (c5 + ... + t^2 * c13))), the Taylor
// series to t^13: on |t| <= pi/2 the first term left out, (pi/2)^15 / 15!,
// is below 1e-9, far under FP32's rounding of the result.
constexpr double kSineTaylor[] = {-1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800,
                                  1.0 / 6227020800};

constexpr const char* kCast = "tile.cast";
constexpr int64_t kCastRint = 1;   // round half to even
constexpr int64_t kCastFloor = 3;

ir::Attrs CastTo(DataType dtype, std::optional<int64_t> mode = std::nullopt) {
  ir::Attrs kwargs;
  kwargs.Set("target_type", dtype);
  if (mode) kwargs.Set("mode", *mode);
  return kwargs;
}

// x = m * pi + t with |t| <= pi/2: m = k for sin and k + 1/2 for cos, k an
// integer. Then sin x = (-1)^k sin t and cos x = -(-1)^k sin t, and since
// sin is odd, that sign goes onto t before the polynomial. The steps are
// ordered to keep few tiles live: k is read back from m once t no longer
// needs x, so at most three FP32 temporaries are live at once (see
// kSinCosWorkingBytesPerElement in the op's definition).
ExprPtr LowerSineOrCosine(const ir::Call& call, LoweringBuilder& b, bool cosine) {
  ExprPtr x = call.args[0];
  const DataType dtype = ir::As<ir::TileType>(x->type)->dtype;
  // The constants and the exactness argument above are FP32's.
  if (dtype != DataType::FP32) x = b.Emit("fp32", kCast, {x}, CastTo(DataType::FP32));

  ExprPtr q = b.Emit("q", "tile.muls", {x, b.Float(kInvPi)});
  if (cosine) q = b.Emit("q", "tile.adds", {q, b.Float(-0.5)});
  ExprPtr k = b.Emit("k", kCast, {q}, CastTo(DataType::INT32, kCastRint));
  ExprPtr m = b.Emit("m", kCast, {k}, CastTo(DataType::FP32));
  if (cosine) m = b.Emit("m", "tile.adds", {m, b.Float(0.5)});

  ExprPtr t = x;
  for (double part : {kPiHead, kPiMid, kPiTail}) {
    ExprPtr multiple = b.Emit("mpi", "tile.muls", {m, b.Float(part)});
    t = b.Emit("t", "tile.sub", {t, multiple});
  }

  // m is an integer, or one plus a half: both cast back to k exactly.
  ExprPtr parity = b.Emit("k", kCast, {m}, CastTo(DataType::INT32, cosine ? kCastFloor : kCastRint));
  parity = b.Emit("odd", "tile.ands", {parity, b.Int(1)});
  ExprPtr sign = b.Emit("sign", kCast, {parity}, CastTo(DataType::FP32));
  sign = b.Emit("sign", "tile.muls", {sign, b.Float(cosine ? 2.0 : -2.0)});
  sign = b.Emit("sign", "tile.adds", {sign, b.Float(cosine ? -1.0 : 1.0)});
  t = b.Emit("t", "tile.mul", {t, sign});

  ExprPtr t_squared = b.Emit("tsq", "tile.mul", {t, t});
  constexpr size_t kTerms = std::size(kSineTaylor);
  ExprPtr p = b.Emit("p", "tile.muls", {t_squared, b.Float(kSineTaylor[kTerms - 1])});
  for (size_t i = kTerms - 1; i-- > 0;) {
    p = b.Emit("p", "tile.adds", {p, b.Float(kSineTaylor[i])});
    p = b.Emit("p", "tile.mul", {p, t_squared});
  }
  p = b.Emit("p", "tile.adds", {p, b.Float(1.0)});
  if (dtype == DataType::FP32) return b.Make("tile.mul", {p, t});
  ExprPtr result = b.Emit("result_fp32", "tile.mul", {p, t});
  return b.Make(kCast, {result}, CastTo(dtype, kCastRint));
}

}  // namespace

ExprPtr LowerSine(const ir::Call& call, LoweringBuilder& builder) { return LowerSineOrCosine(call, builder, false); }

ExprPtr LowerCosine(const ir::Call& call, LoweringBuilder& builder) { return LowerSineOrCosine(call, builder, true); }

}  // namespace pypto::passes
