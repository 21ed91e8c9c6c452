// Ops the verifier tests call; the names are private to these tests.
#include "pypto/ops/registry.h"
#include "verifier_test_util.h"

namespace {

using pypto::ir::ExprPtr;
using pypto::ops::DeduceContext;

bool SameDims(const std::vector<ExprPtr>& a, const std::vector<ExprPtr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto x = pypto::ir::AsConstInt(a[i]);
    auto y = pypto::ir::AsConstInt(b[i]);
    if (a[i] != b[i] && !(x && y && *x == *y)) return false;
  }
  return true;
}

PYPTO_REGISTER_OP(pypto::ir::verifier_test::kAddOp)
    .set_category(pypto::ops::OpCategory::kTensorOp)
    .add_argument("lhs")
    .add_argument("rhs")
    .set_type_deduce([](const DeduceContext& ctx) -> pypto::ir::TypePtr {
      auto lhs = ctx.TensorArg(0);
      auto rhs = ctx.TensorArg(1);
      if (!SameDims(lhs->shape, rhs->shape) || lhs->dtype != rhs->dtype) {
        ctx.Error("operands " + pypto::ir::TypeToString(lhs) + " and " + pypto::ir::TypeToString(rhs) + " differ");
      }
      return lhs;
    });

PYPTO_REGISTER_OP(pypto::ir::verifier_test::kCreateOp)
    .set_category(pypto::ops::OpCategory::kTensorOp)
    .set_placement(pypto::ops::Placement::kOrchestrationOnly)
    .add_required_kwarg("size", pypto::ops::AttrKind::kInt)
    .set_type_deduce([](const DeduceContext& ctx) -> pypto::ir::TypePtr {
      std::vector<int64_t> shape{*ctx.KwargAs<int64_t>("size")};
      return pypto::ir::TensorType::Make(shape, pypto::ir::DataType::FP32);
    });

PYPTO_REGISTER_OP(pypto::ir::verifier_test::kScalarAddOp)
    .set_category(pypto::ops::OpCategory::kSystemOp)
    .add_argument("lhs")
    .add_argument("rhs")
    .set_type_deduce([](const DeduceContext& ctx) -> pypto::ir::TypePtr {
      ctx.ScalarArg(1);
      return pypto::ir::ScalarType::Make(ctx.ScalarArg(0));
    });

PYPTO_REGISTER_OP(pypto::ir::verifier_test::kTileNegOp)
    .set_category(pypto::ops::OpCategory::kTileOp)
    .add_argument("tile")
    .set_type_deduce([](const DeduceContext& ctx) -> pypto::ir::TypePtr {
      auto tile = ctx.TileArg(0);
      return pypto::ir::TileType::Make(tile->shape, tile->dtype);
    });

}  // namespace
