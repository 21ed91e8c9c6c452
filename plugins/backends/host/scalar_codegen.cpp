#include "scalar_codegen.h"

#include <llvm/IR/Intrinsics.h>

namespace pypto::host {
namespace {

using ir::BinaryOp;
using ir::DataType;
using ir::UnaryOp;

// TASK_ID is an opaque 64-bit id; as a value it behaves as a signed integer.
bool IsIntLike(DataType d) { return d.is_int() || d == DataType::TASK_ID; }
bool IsSigned(DataType d) { return d.is_signed_int() || d == DataType::TASK_ID; }

llvm::CmpInst::Predicate FloatPredicate(BinaryOp op) {
  switch (op) {
    case BinaryOp::Eq: return llvm::CmpInst::FCMP_OEQ;
    case BinaryOp::Ne: return llvm::CmpInst::FCMP_UNE;
    case BinaryOp::Lt: return llvm::CmpInst::FCMP_OLT;
    case BinaryOp::Le: return llvm::CmpInst::FCMP_OLE;
    case BinaryOp::Gt: return llvm::CmpInst::FCMP_OGT;
    default: return llvm::CmpInst::FCMP_OGE;
  }
}

llvm::CmpInst::Predicate IntPredicate(BinaryOp op, bool is_signed) {
  switch (op) {
    case BinaryOp::Eq: return llvm::CmpInst::ICMP_EQ;
    case BinaryOp::Ne: return llvm::CmpInst::ICMP_NE;
    case BinaryOp::Lt: return is_signed ? llvm::CmpInst::ICMP_SLT : llvm::CmpInst::ICMP_ULT;
    case BinaryOp::Le: return is_signed ? llvm::CmpInst::ICMP_SLE : llvm::CmpInst::ICMP_ULE;
    case BinaryOp::Gt: return is_signed ? llvm::CmpInst::ICMP_SGT : llvm::CmpInst::ICMP_UGT;
    default: return is_signed ? llvm::CmpInst::ICMP_SGE : llvm::CmpInst::ICMP_UGE;
  }
}

llvm::Value* Compare(llvm::IRBuilder<>& b, BinaryOp op, llvm::Value* l, llvm::Value* r, DataType dtype) {
  if (dtype.is_float()) return b.CreateFCmp(FloatPredicate(op), l, r);
  return b.CreateICmp(IntPredicate(op, IsSigned(dtype)), l, r);
}

// Signed division rounds toward zero; Python's // and % round toward
// negative infinity, which differs when the remainder is nonzero and its sign
// differs from the divisor's.
llvm::Value* NeedsFloorAdjust(llvm::IRBuilder<>& b, llvm::Value* rem, llvm::Value* rhs) {
  llvm::Value* zero = llvm::ConstantInt::get(rem->getType(), 0);
  llvm::Value* nonzero = b.CreateICmpNE(rem, zero);
  llvm::Value* signs_differ = b.CreateICmpSLT(b.CreateXor(rem, rhs), zero);
  return b.CreateAnd(nonzero, signs_differ);
}

llvm::Value* IntFloorDiv(llvm::IRBuilder<>& b, llvm::Value* l, llvm::Value* r, bool is_signed) {
  if (!is_signed) return b.CreateUDiv(l, r);
  llvm::Value* adjust = NeedsFloorAdjust(b, b.CreateSRem(l, r), r);
  return b.CreateSub(b.CreateSDiv(l, r), b.CreateZExt(adjust, l->getType()));
}

llvm::Value* IntFloorMod(llvm::IRBuilder<>& b, llvm::Value* l, llvm::Value* r, bool is_signed) {
  if (!is_signed) return b.CreateURem(l, r);
  llvm::Value* rem = b.CreateSRem(l, r);
  llvm::Value* adjust = NeedsFloorAdjust(b, rem, r);
  return b.CreateAdd(rem, b.CreateSelect(adjust, r, llvm::ConstantInt::get(r->getType(), 0)));
}

llvm::Value* FloatArithmetic(llvm::IRBuilder<>& b, BinaryOp op, llvm::Value* l, llvm::Value* r,
                             const ScalarError& error) {
  switch (op) {
    case BinaryOp::Add: return b.CreateFAdd(l, r);
    case BinaryOp::Sub: return b.CreateFSub(l, r);
    case BinaryOp::Mul: return b.CreateFMul(l, r);
    case BinaryOp::FloatDiv: return b.CreateFDiv(l, r);
    case BinaryOp::FloorDiv: return b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFDiv(l, r));
    case BinaryOp::FloorMod: {
      llvm::Value* quotient = b.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b.CreateFDiv(l, r));
      return b.CreateFSub(l, b.CreateFMul(quotient, r));
    }
    case BinaryOp::Min: return b.CreateBinaryIntrinsic(llvm::Intrinsic::minnum, l, r);
    case BinaryOp::Max: return b.CreateBinaryIntrinsic(llvm::Intrinsic::maxnum, l, r);
    case BinaryOp::Pow: return b.CreateBinaryIntrinsic(llvm::Intrinsic::pow, l, r);
    default:
      error(std::string("operator '") + ir::BinaryOpSymbol(op) + "' needs integer operands");
      return nullptr;
  }
}

llvm::Value* IntArithmetic(llvm::IRBuilder<>& b, BinaryOp op, llvm::Value* l, llvm::Value* r, bool is_signed,
                           const ScalarError& error) {
  switch (op) {
    case BinaryOp::Add: return b.CreateAdd(l, r);
    case BinaryOp::Sub: return b.CreateSub(l, r);
    case BinaryOp::Mul: return b.CreateMul(l, r);
    case BinaryOp::FloorDiv: return IntFloorDiv(b, l, r, is_signed);
    case BinaryOp::FloorMod: return IntFloorMod(b, l, r, is_signed);
    case BinaryOp::Min:
      return b.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, l, r);
    case BinaryOp::Max:
      return b.CreateBinaryIntrinsic(is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, l, r);
    case BinaryOp::BitAnd: return b.CreateAnd(l, r);
    case BinaryOp::BitOr: return b.CreateOr(l, r);
    case BinaryOp::BitXor: return b.CreateXor(l, r);
    case BinaryOp::BitShiftLeft: return b.CreateShl(l, r);
    case BinaryOp::BitShiftRight: return is_signed ? b.CreateAShr(l, r) : b.CreateLShr(l, r);
    default:
      error(std::string("operator '") + ir::BinaryOpSymbol(op) +
            "' on integers is not lowered on the host; compute it in floating point (cast an operand to FP32 or "
            "FP64) or in a kernel");
      return nullptr;
  }
}

bool IsLogical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or || op == BinaryOp::Xor; }

}  // namespace

llvm::Type* ScalarLLVMType(llvm::LLVMContext& context, DataType dtype) {
  if (dtype.is_bool()) return llvm::Type::getInt1Ty(context);
  if (IsIntLike(dtype)) return dtype.bits() >= 8 ? llvm::Type::getIntNTy(context, dtype.bits()) : nullptr;
  if (dtype == DataType::FP16) return llvm::Type::getHalfTy(context);
  if (dtype == DataType::BF16) return llvm::Type::getBFloatTy(context);
  if (dtype == DataType::FP32) return llvm::Type::getFloatTy(context);
  if (dtype == DataType::FP64) return llvm::Type::getDoubleTy(context);
  return nullptr;
}

llvm::Value* ConvertScalar(llvm::IRBuilder<>& b, llvm::Value* value, DataType from, DataType to) {
  if (from == to) return value;
  llvm::Type* type = ScalarLLVMType(b.getContext(), to);
  if (to.is_bool()) {
    if (from.is_float()) return b.CreateFCmpUNE(value, llvm::ConstantFP::get(value->getType(), 0.0));
    return b.CreateICmpNE(value, llvm::ConstantInt::get(value->getType(), 0));
  }
  if (IsIntLike(to)) {
    if (from.is_bool()) return b.CreateZExt(value, type);
    if (from.is_float()) return IsSigned(to) ? b.CreateFPToSI(value, type) : b.CreateFPToUI(value, type);
    return b.CreateIntCast(value, type, IsSigned(from));
  }
  if (from.is_bool()) return b.CreateUIToFP(value, type);
  if (IsIntLike(from)) return IsSigned(from) ? b.CreateSIToFP(value, type) : b.CreateUIToFP(value, type);
  return b.CreateFPCast(value, type);
}

llvm::Value* FromSlotBits(llvm::IRBuilder<>& b, llvm::Value* bits, DataType dtype) {
  if (dtype.is_bool()) return b.CreateICmpNE(bits, b.getInt64(0));
  llvm::Type* type = ScalarLLVMType(b.getContext(), dtype);
  llvm::Value* narrow = b.CreateTrunc(bits, b.getIntNTy(dtype.bits()));
  return dtype.is_float() ? b.CreateBitCast(narrow, type) : narrow;
}

llvm::Value* ToSlotBits(llvm::IRBuilder<>& b, llvm::Value* value, DataType dtype) {
  if (dtype.is_bool()) return b.CreateZExt(value, b.getInt64Ty());
  if (dtype.is_float()) return b.CreateZExt(b.CreateBitCast(value, b.getIntNTy(dtype.bits())), b.getInt64Ty());
  return b.CreateSExt(value, b.getInt64Ty());
}

llvm::Value* EmitBinary(llvm::IRBuilder<>& b, BinaryOp op, llvm::Value* lhs, DataType lhs_dtype, llvm::Value* rhs,
                        DataType rhs_dtype, DataType result, const ScalarError& error) {
  if (ir::IsComparison(op)) {
    DataType common = ir::PromoteTypes(lhs_dtype, rhs_dtype);
    return Compare(b, op, ConvertScalar(b, lhs, lhs_dtype, common), ConvertScalar(b, rhs, rhs_dtype, common), common);
  }
  if (IsLogical(op)) {
    llvm::Value* l = ConvertScalar(b, lhs, lhs_dtype, DataType::BOOL);
    llvm::Value* r = ConvertScalar(b, rhs, rhs_dtype, DataType::BOOL);
    if (op == BinaryOp::And) return b.CreateAnd(l, r);
    return op == BinaryOp::Or ? b.CreateOr(l, r) : b.CreateXor(l, r);
  }
  llvm::Value* l = ConvertScalar(b, lhs, lhs_dtype, result);
  llvm::Value* r = ConvertScalar(b, rhs, rhs_dtype, result);
  if (result.is_float()) return FloatArithmetic(b, op, l, r, error);
  return IntArithmetic(b, op, l, r, IsSigned(result), error);
}

llvm::Value* EmitUnary(llvm::IRBuilder<>& b, UnaryOp op, llvm::Value* operand, DataType operand_dtype,
                       DataType result, const ScalarError& error) {
  switch (op) {
    case UnaryOp::Cast: return ConvertScalar(b, operand, operand_dtype, result);
    case UnaryOp::Not: return b.CreateNot(ConvertScalar(b, operand, operand_dtype, DataType::BOOL));
    case UnaryOp::BitNot: return b.CreateNot(operand);
    case UnaryOp::Neg: return operand_dtype.is_float() ? b.CreateFNeg(operand) : b.CreateNeg(operand);
    case UnaryOp::Abs:
      if (operand_dtype.is_float()) return b.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, operand);
      if (!IsSigned(operand_dtype)) return operand;
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, operand, b.getFalse());
  }
  error(std::string("unary operator '") + ir::UnaryOpSymbol(op) + "' is not lowered on the host");
  return nullptr;
}

}  // namespace pypto::host
