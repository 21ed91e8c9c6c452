// Builders for op-call operands and the table types the op tests share.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"
#include "pypto/support/error.h"
#include "pypto/support/strings.h"

namespace pypto::ops::testing {

using namespace pypto::ir;

// A tensor whose shape may hold dynamic dims.
inline ExprPtr DynTensor(Shape shape, DataType dtype = DataType::FP32, Shape valid = {}) {
  return Var::Make("t", MakeTensorType(std::move(shape), dtype, std::move(valid)));
}
inline ExprPtr Tensor(const std::vector<int64_t>& shape, DataType dtype = DataType::FP32,
                      const std::vector<int64_t>& valid = {}) {
  return DynTensor(Ints(shape), dtype, Ints(valid));
}

// A window (pld.DistributedTensor): what the distributed ops' window operands must be.
inline ExprPtr Window(const std::vector<int64_t>& shape, DataType dtype = DataType::FP32,
                      const std::string& name = "w") {
  return Var::Make(name, DistributedTensorType::Make(Ints(shape), dtype));
}

inline ExprPtr DynTile(Shape shape, DataType dtype = DataType::FP32, std::optional<MemorySpace> space = std::nullopt,
                       Shape valid = {}) {
  auto t = std::make_shared<TileType>();
  t->shape = std::move(shape);
  t->dtype = dtype;
  t->memory_space = space;
  t->valid_shape = std::move(valid);
  return Var::Make("tile", t);
}
inline ExprPtr Tile(const std::vector<int64_t>& shape, DataType dtype = DataType::FP32,
                    std::optional<MemorySpace> space = std::nullopt, const std::vector<int64_t>& valid = {}) {
  return DynTile(Ints(shape), dtype, space, Ints(valid));
}

inline ExprPtr Scalar(DataType dtype, const std::string& name = "s") {
  return Var::Make(name, ScalarType::Make(dtype));
}
// A dynamic extent, as `pl.dynamic("N")` declares it.
inline ExprPtr Dim(const std::string& name) { return Var::Make(name, ScalarType::Make(DataType::INDEX)); }

inline ExprPtr List(const std::vector<int64_t>& values) { return MakeTuple::Make(Ints(values)); }
inline ExprPtr ListOf(std::vector<ExprPtr> values) { return MakeTuple::Make(std::move(values)); }

inline AttrValue Mem(MemorySpace space) { return EnumAttr::Of(space); }

// Every field of a type the op rules decide, in one line:
// "Tile[[64, 1], FP32, Vec, valid=[m, 1]]", "Tensor[[8, 8], FP16, valid=[4, 8], DN]".
inline std::string Describe(const TypePtr& type) {
  if (auto t = As<TensorType>(type)) {
    std::string s = std::string(IsA<DistributedTensorType>(type) ? "DistributedTensor[" : "Tensor[") +
                    ShapeString(t->shape) + ", " + t->dtype.name();
    if (t->view && !t->view->valid_shape.empty()) s += ", valid=" + ShapeString(t->view->valid_shape);
    if (t->layout != TensorLayout::ND) s += std::string(", ") + ToString(t->layout);
    return s + "]";
  }
  if (auto t = As<TileType>(type)) {
    std::string s = "Tile[" + ShapeString(t->shape) + ", " + t->dtype.name();
    if (t->memory_space) s += std::string(", ") + ToString(*t->memory_space);
    if (!t->valid_shape.empty()) s += ", valid=" + ShapeString(t->valid_shape);
    return s + "]";
  }
  return TypeToString(type);
}

inline TypePtr Deduce(const std::string& op, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  return OpRegistry::Global().Create(op, std::move(args), std::move(kwargs))->type;
}

// The message of the TypeError the call raises, or a note saying what happened instead.
inline std::string ErrorOf(const std::string& op, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  try {
    TypePtr type = Deduce(op, std::move(args), std::move(kwargs));
    return "no error; deduced " + Describe(type);
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kType) return std::string("a ") + ErrorKindName(e.kind()) + " error: " + e.message();
    return e.message();
  }
}

struct SuccessCase {
  std::string op;
  std::vector<ExprPtr> args;
  Attrs kwargs;
  std::string expected;  // Describe() of the result type
};

struct ErrorCase {
  std::string op;
  std::vector<ExprPtr> args;
  Attrs kwargs;
  std::string fragment;  // must occur in the TypeError's message
};

inline std::string ArgsString(const std::vector<ExprPtr>& args) {
  return "(" + JoinMapped(args, ", ", [](const ExprPtr& a) { return Describe(a->type); }) + ")";
}
inline void PrintTo(const SuccessCase& c, std::ostream* os) {
  *os << c.op << ArgsString(c.args) << " -> " << c.expected;
}
inline void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.op << ArgsString(c.args) << " raises \"" << c.fragment << "\"";
}

// The case tables, one pair per op family file.
std::vector<SuccessCase> TensorSuccessCases();
std::vector<ErrorCase> TensorErrorCases();
std::vector<SuccessCase> TileSuccessCases();
std::vector<ErrorCase> TileErrorCases();
std::vector<SuccessCase> SystemArraySuccessCases();
std::vector<ErrorCase> SystemArrayErrorCases();
std::vector<SuccessCase> CommSuccessCases();
std::vector<ErrorCase> CommErrorCases();
std::vector<SuccessCase> PipeSuccessCases();
std::vector<ErrorCase> PipeErrorCases();

}  // namespace pypto::ops::testing
