// Evaluation of scalar operations on literal operands (ConstInt, ConstFloat,
// ConstBool) with the semantics of the DSL: Python floor division and modulo,
// fixed-width integer dtypes, IEEE FP32 and FP64.
//
// A fold never guesses: when the exact result is not representable in the
// result dtype (integer overflow, a float format the host cannot compute in,
// a finite computation giving inf or NaN) or the operation would fail at run
// time (division by zero, a negative shift or exponent), the functions return
// nullptr and the expression stays as written.
#pragma once

#include "pypto/ir/expr.h"

namespace pypto::passes::simplify {

bool IsLiteral(const ir::ExprPtr& e);

// The literal value of `op(lhs, rhs)` with dtype `result`, or nullptr.
ir::ExprPtr FoldBinary(ir::BinaryOp op, const ir::ExprPtr& lhs, const ir::ExprPtr& rhs, ir::DataType result,
                       const Span& span);

// The literal value of `op(operand)` with dtype `result` (the target of a cast), or nullptr.
ir::ExprPtr FoldUnary(ir::UnaryOp op, const ir::ExprPtr& operand, ir::DataType result, const Span& span);

// `literal` converted to `dtype` as a cast would convert it, or nullptr.
ir::ExprPtr ConvertLiteral(const ir::ExprPtr& literal, ir::DataType dtype, const Span& span);

}  // namespace pypto::passes::simplify
