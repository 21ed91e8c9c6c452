// Builders and assertions shared by the verifier tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pypto/ir/verifier.h"

namespace pypto::ir::verifier_test {

// Ops registered by test_ops.cpp for these tests only.
//   add(lhs, rhs)         Tensor x Tensor -> Tensor; InCore only
//   create(size=int)      -> Tensor[[size], FP32]; orchestration only
//   scalar_add(lhs, rhs)  Scalar x Scalar -> Scalar; anywhere
//   tile_neg(tile)        Tile -> Tile with the memory space left open; InCore only
inline constexpr const char* kAddOp = "test_verifier.add";
inline constexpr const char* kCreateOp = "test_verifier.create";
inline constexpr const char* kScalarAddOp = "test_verifier.scalar_add";
inline constexpr const char* kTileNegOp = "test_verifier.tile_neg";

inline Span At(int line, int col = 5) { return Span("test.py", line, col); }

inline TypePtr IndexT() { return ScalarType::Make(DataType::INDEX); }
inline TypePtr BoolT() { return ScalarType::Make(DataType::BOOL); }
inline TypePtr Fp32T() { return ScalarType::Make(DataType::FP32); }
inline TypePtr TensorT(const std::vector<int64_t>& shape, DataType dtype = DataType::FP32) {
  return TensorType::Make(shape, dtype);
}

inline VarPtr V(const std::string& name, TypePtr type, Span span = Span()) {
  return Var::Make(name, std::move(type), std::move(span));
}

inline FunctionPtr MakeFn(const std::string& name, std::vector<VarPtr> params, std::vector<TypePtr> return_types,
                          StmtPtr body, FunctionType type = FunctionType::Opaque) {
  std::vector<ParamDirection> directions(params.size(), ParamDirection::In);
  return Function::Make(name, type, std::move(params), std::move(directions), std::move(return_types),
                        std::move(body), At(1, 1));
}

inline std::string Dump(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += d.ToString() + "\n";
  return out;
}

// Asserts every field of one diagnostic.
inline void ExpectDiagnostic(const Diagnostic& d, const std::string& rule, const std::string& code,
                             const std::string& function, const std::string& node, const Span& span,
                             const std::string& message) {
  EXPECT_EQ(d.severity, Diagnostic::Severity::kError);
  EXPECT_EQ(d.rule, rule);
  EXPECT_EQ(d.code, code);
  EXPECT_EQ(d.function, function);
  EXPECT_EQ(d.node, node);
  EXPECT_EQ(d.span, span) << "got " << d.span.ToString();
  EXPECT_EQ(d.message, message);
}

}  // namespace pypto::ir::verifier_test
