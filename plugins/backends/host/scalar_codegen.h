// Scalar values of orchestration code in LLVM: the type of each dtype,
// conversions, the slot encoding of the runtime, and the IR's scalar
// operators with Python semantics (floor division and modulo round toward
// negative infinity).
#pragma once

#include <llvm/IR/IRBuilder.h>

#include <functional>
#include <string>

#include "pypto/ir/ir.h"

namespace pypto::host {

// Throws the backend's CodegenError about the expression being lowered.
using ScalarError = std::function<void(const std::string& message)>;

// BOOL i1, 8/16/32/64-bit integers (INDEX and TASK_ID are i64), FP16 half,
// BF16 bfloat, FP32 float, FP64 double; nullptr for dtypes orchestration code
// cannot hold (4-bit and 8-bit floats).
llvm::Type* ScalarLLVMType(llvm::LLVMContext& context, ir::DataType dtype);

llvm::Value* ConvertScalar(llvm::IRBuilder<>& b, llvm::Value* value, ir::DataType from, ir::DataType to);

// A program or kernel scalar slot holds the value's bits in its own dtype:
// integers sign-extended to 64 bits, BOOL as 0/1, floats as their bits
// zero-extended.
llvm::Value* FromSlotBits(llvm::IRBuilder<>& b, llvm::Value* bits, ir::DataType dtype);
llvm::Value* ToSlotBits(llvm::IRBuilder<>& b, llvm::Value* value, ir::DataType dtype);

llvm::Value* EmitBinary(llvm::IRBuilder<>& b, ir::BinaryOp op, llvm::Value* lhs, ir::DataType lhs_dtype,
                        llvm::Value* rhs, ir::DataType rhs_dtype, ir::DataType result, const ScalarError& error);
llvm::Value* EmitUnary(llvm::IRBuilder<>& b, ir::UnaryOp op, llvm::Value* operand, ir::DataType operand_dtype,
                       ir::DataType result, const ScalarError& error);

}  // namespace pypto::host
