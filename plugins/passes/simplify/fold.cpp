#include "fold.h"

#include <cmath>
#include <cstdint>
#include <optional>

namespace pypto::passes::simplify {

using ir::BinaryOp;
using ir::DataType;
using ir::ExprPtr;
using ir::UnaryOp;

namespace {

// 64-bit operands never overflow this, so every result is exact before the range check.
using Wide = __int128;

struct Literal {
  bool is_float = false;
  Wide integer = 0;
  double real = 0;

  double AsReal() const { return is_float ? real : static_cast<double>(integer); }
  bool Truthy() const { return is_float ? real != 0 : integer != 0; }
};

Literal IntLiteral(Wide v) { return Literal{false, v, 0}; }

std::optional<Literal> LiteralOf(const ExprPtr& e) {
  if (auto c = ir::As<ir::ConstBool>(e)) return IntLiteral(c->value ? 1 : 0);
  if (auto c = ir::As<ir::ConstInt>(e)) {
    // Unsigned values are stored as the int64 with the same bits.
    if (c->dtype().is_unsigned_int()) return IntLiteral(static_cast<Wide>(static_cast<uint64_t>(c->value)));
    return IntLiteral(c->value);
  }
  if (auto c = ir::As<ir::ConstFloat>(e)) {
    // An FP32 literal holds a double; the target computes with its float rounding.
    if (c->dtype() == DataType::FP32) return Literal{true, 0, static_cast<double>(static_cast<float>(c->value))};
    return Literal{true, 0, c->value};
  }
  return std::nullopt;
}

struct IntRange {
  Wide min;
  Wide max;
};

IntRange RangeOf(DataType dtype) {
  const int bits = dtype.bits();
  if (dtype.is_unsigned_int()) return {0, (Wide(1) << bits) - 1};
  return {-(Wide(1) << (bits - 1)), (Wide(1) << (bits - 1)) - 1};
}

ExprPtr MakeInt(Wide v, DataType dtype, const Span& span) {
  const IntRange range = RangeOf(dtype);
  if (v < range.min || v > range.max) return nullptr;
  const int64_t stored =
      dtype.is_unsigned_int() ? static_cast<int64_t>(static_cast<uint64_t>(v)) : static_cast<int64_t>(v);
  return ir::ConstInt::Make(stored, dtype, span);
}

// Only FP32 and FP64 have exact host counterparts; narrower formats keep the
// operation so that the target rounds it.
ExprPtr MakeReal(double v, DataType dtype, const Span& span) {
  double rounded = v;
  if (dtype == DataType::FP32) {
    rounded = static_cast<double>(static_cast<float>(v));
  } else if (dtype != DataType::FP64) {
    return nullptr;
  }
  if (std::isfinite(v) && !std::isfinite(rounded)) return nullptr;
  return ir::ConstFloat::Make(rounded, dtype, span);
}

ExprPtr MakeLiteral(const Literal& v, DataType dtype, const Span& span) {
  if (dtype.is_float()) return MakeReal(v.AsReal(), dtype, span);
  if (v.is_float) return nullptr;
  if (dtype.is_bool()) {
    if (v.integer != 0 && v.integer != 1) return nullptr;
    return ir::ConstBool::Make(v.integer == 1, span);
  }
  if (dtype.is_int()) return MakeInt(v.integer, dtype, span);
  return nullptr;
}

ExprPtr Convert(const Literal& v, DataType dtype, const Span& span) {
  if (dtype.is_bool()) return ir::ConstBool::Make(v.Truthy(), span);
  if (dtype.is_int() && v.is_float) {
    // Float to int truncates toward zero; values beyond 2^64 fit no integer dtype.
    if (!std::isfinite(v.real) || std::fabs(v.real) >= 0x1p64) return nullptr;
    return MakeInt(static_cast<Wide>(std::trunc(v.real)), dtype, span);
  }
  return MakeLiteral(v, dtype, span);
}

std::optional<Wide> FloorDivInt(Wide a, Wide b) {
  if (b == 0) return std::nullopt;
  Wide q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

std::optional<Wide> PowInt(Wide base, Wide exponent) {
  if (exponent < 0) return std::nullopt;  // Python gives a float; the dtype is an integer
  if (base == 0) return exponent == 0 ? 1 : 0;
  if (base == 1) return 1;
  if (base == -1) return exponent % 2 == 0 ? 1 : -1;
  // |base| >= 2, so the result leaves every 64-bit range within 64 steps.
  const Wide limit = Wide(1) << 65;
  Wide result = 1;
  for (Wide i = 0; i < exponent; ++i) {
    result *= base;
    if (result > limit || result < -limit) return std::nullopt;
  }
  return result;
}

std::optional<Wide> ShiftLeftInt(Wide a, Wide count) {
  if (count < 0) return std::nullopt;
  if (a == 0) return 0;
  if (count >= 64) return std::nullopt;  // leaves every 64-bit range
  return a * (Wide(1) << count);
}

std::optional<Wide> ShiftRightInt(Wide a, Wide count) {
  if (count < 0) return std::nullopt;
  if (count >= 64) return a < 0 ? -1 : 0;  // every 64-bit value is shifted out
  return a >> count;  // arithmetic shift: floor division by 2^count, as in Python
}

std::optional<Wide> IntArith(BinaryOp op, Wide a, Wide b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::FloorDiv: return FloorDivInt(a, b);
    case BinaryOp::FloorMod: {
      auto q = FloorDivInt(a, b);
      if (!q) return std::nullopt;
      return a - *q * b;
    }
    case BinaryOp::Min: return b < a ? b : a;
    case BinaryOp::Max: return b > a ? b : a;
    case BinaryOp::Pow: return PowInt(a, b);
    case BinaryOp::BitAnd: return a & b;
    case BinaryOp::BitOr: return a | b;
    case BinaryOp::BitXor: return a ^ b;
    case BinaryOp::BitShiftLeft: return ShiftLeftInt(a, b);
    case BinaryOp::BitShiftRight: return ShiftRightInt(a, b);
    default: return std::nullopt;
  }
}

struct RealDivMod {
  double floor_div;
  double mod;
};

// Python's float divmod: the remainder takes the divisor's sign.
std::optional<RealDivMod> DivModReal(double a, double b) {
  if (b == 0) return std::nullopt;
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  double floor_div;
  if (div != 0) {
    floor_div = std::floor(div);
    if (div - floor_div > 0.5) floor_div += 1.0;
  } else {
    floor_div = std::copysign(0.0, a / b);
  }
  return RealDivMod{floor_div, mod};
}

std::optional<double> RealArith(BinaryOp op, double a, double b) {
  switch (op) {
    case BinaryOp::Add: return a + b;
    case BinaryOp::Sub: return a - b;
    case BinaryOp::Mul: return a * b;
    case BinaryOp::FloatDiv:
      if (b == 0) return std::nullopt;
      return a / b;
    case BinaryOp::FloorDiv: {
      auto r = DivModReal(a, b);
      if (!r) return std::nullopt;
      return r->floor_div;
    }
    case BinaryOp::FloorMod: {
      auto r = DivModReal(a, b);
      if (!r) return std::nullopt;
      return r->mod;
    }
    case BinaryOp::Min: return b < a ? b : a;
    case BinaryOp::Max: return b > a ? b : a;
    case BinaryOp::Pow:
      if (a == 0 && b < 0) return std::nullopt;
      return std::pow(a, b);
    default: return std::nullopt;
  }
}

bool Compare(BinaryOp op, const Literal& a, const Literal& b) {
  if (a.is_float || b.is_float) {
    const double x = a.AsReal();
    const double y = b.AsReal();
    switch (op) {
      case BinaryOp::Eq: return x == y;
      case BinaryOp::Ne: return x != y;
      case BinaryOp::Lt: return x < y;
      case BinaryOp::Le: return x <= y;
      case BinaryOp::Gt: return x > y;
      default: return x >= y;
    }
  }
  const Wide x = a.integer;
  const Wide y = b.integer;
  switch (op) {
    case BinaryOp::Eq: return x == y;
    case BinaryOp::Ne: return x != y;
    case BinaryOp::Lt: return x < y;
    case BinaryOp::Le: return x <= y;
    case BinaryOp::Gt: return x > y;
    default: return x >= y;
  }
}

bool IsBitwise(BinaryOp op) {
  return op == BinaryOp::BitAnd || op == BinaryOp::BitOr || op == BinaryOp::BitXor ||
         op == BinaryOp::BitShiftLeft || op == BinaryOp::BitShiftRight;
}

ExprPtr FoldArithmetic(BinaryOp op, const Literal& a, const Literal& b, DataType result, const Span& span) {
  if (result.is_float()) {
    const double x = a.AsReal();
    const double y = b.AsReal();
    auto v = RealArith(op, x, y);
    if (!v) return nullptr;
    if (!std::isfinite(*v) && std::isfinite(x) && std::isfinite(y)) return nullptr;
    return MakeReal(*v, result, span);
  }
  if (a.is_float || b.is_float) return nullptr;
  // BOOL arithmetic (True + True) is an integer in Python but BOOL here; only bitwise ops stay boolean.
  if (result.is_bool() && !IsBitwise(op)) return nullptr;
  auto v = IntArith(op, a.integer, b.integer);
  if (!v) return nullptr;
  return MakeLiteral(IntLiteral(*v), result, span);
}

}  // namespace

bool IsLiteral(const ExprPtr& e) { return LiteralOf(e).has_value(); }

ExprPtr FoldBinary(BinaryOp op, const ExprPtr& lhs, const ExprPtr& rhs, DataType result, const Span& span) {
  auto a = LiteralOf(lhs);
  auto b = LiteralOf(rhs);
  if (!a || !b) return nullptr;
  if (ir::IsComparison(op)) return ir::ConstBool::Make(Compare(op, *a, *b), span);
  switch (op) {
    case BinaryOp::And: return ir::ConstBool::Make(a->Truthy() && b->Truthy(), span);
    case BinaryOp::Or: return ir::ConstBool::Make(a->Truthy() || b->Truthy(), span);
    case BinaryOp::Xor: return ir::ConstBool::Make(a->Truthy() != b->Truthy(), span);
    default: return FoldArithmetic(op, *a, *b, result, span);
  }
}

ExprPtr FoldUnary(UnaryOp op, const ExprPtr& operand, DataType result, const Span& span) {
  auto a = LiteralOf(operand);
  if (!a) return nullptr;
  switch (op) {
    case UnaryOp::Not: return ir::ConstBool::Make(!a->Truthy(), span);
    case UnaryOp::Cast: return Convert(*a, result, span);
    case UnaryOp::Neg:
      if (result.is_bool()) return nullptr;
      return a->is_float ? MakeReal(-a->real, result, span) : MakeInt(-a->integer, result, span);
    case UnaryOp::Abs:
      if (result.is_bool()) return nullptr;
      return a->is_float ? MakeReal(std::fabs(a->real), result, span)
                         : MakeInt(a->integer < 0 ? -a->integer : a->integer, result, span);
    case UnaryOp::BitNot:
      if (a->is_float || !result.is_int()) return nullptr;
      // Fixed-width complement: for unsigned dtypes ~x is max - x, not Python's -x - 1.
      if (result.is_unsigned_int()) return MakeInt(RangeOf(result).max - a->integer, result, span);
      return MakeInt(~a->integer, result, span);
  }
  return nullptr;
}

ExprPtr ConvertLiteral(const ExprPtr& literal, DataType dtype, const Span& span) {
  auto v = LiteralOf(literal);
  if (!v) return nullptr;
  return Convert(*v, dtype, span);
}

}  // namespace pypto::passes::simplify
