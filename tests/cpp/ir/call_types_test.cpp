// A callee's return types at a call site name what the call passes.
#include <gtest/gtest.h>

#include "pypto/ir/call_types.h"
#include "pypto/ir/printer.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

TEST(CallSiteReturnTypes, ScalarParametersBecomeTheArguments) {
  auto n = IndexVar("n");
  auto a = Var::Make("a", TensorType::Make({n, Int(64)}, DataType::FP32));
  auto caller_n = IndexVar("rows");
  auto x = Var::Make("x", TensorType::Make({caller_n, Int(64)}, DataType::FP32));
  auto types = CallSiteReturnTypes({n, a}, {a->type}, {caller_n, x});
  ASSERT_EQ(types.size(), 1u);
  EXPECT_SAME_IR(types[0], x->type);
}

TEST(CallSiteReturnTypes, DimsOfParameterTypesBecomeTheArgumentsDims) {
  auto m = IndexVar("m");
  auto a = Var::Make("a", TensorType::Make({m, Int(16)}, DataType::FP16));
  auto result = TensorType::Make({Int(16), m}, DataType::FP16);
  auto x = Var::Make("x", TensorType::Make({Int(128), Int(16)}, DataType::FP16));
  auto types = CallSiteReturnTypes({a}, {result}, {x});
  EXPECT_SAME_IR(types[0], TensorType::Make({Int(16), Int(128)}, DataType::FP16));
}

TEST(CallSiteReturnTypes, StaticReturnTypesAreUnchanged) {
  auto a = Var::Make("a", TensorType::Make({Int(8), Int(8)}, DataType::FP32));
  auto types = CallSiteReturnTypes({a}, {a->type}, {a});
  EXPECT_EQ(types[0], a->type);
}

TEST(CallTypeOf, OneTypeIsTheTypeSeveralATuple) {
  auto t = TensorType::Make({Int(8)}, DataType::FP32);
  EXPECT_EQ(CallTypeOf({t}), t);
  EXPECT_TRUE(As<TupleType>(CallTypeOf({t, t})));
  EXPECT_TRUE(As<UnknownType>(CallTypeOf({})));
}

}  // namespace
}  // namespace pypto::test
