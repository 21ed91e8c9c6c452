#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "pypto/ir/result_params.h"
#include "pypto/ops/registry.h"

using namespace pypto::ir;

namespace {

TypePtr Tensor16() { return TensorType::Make(std::vector<int64_t>{16}, DataType::FP32); }

CallPtr Op(const std::string& name, std::vector<ExprPtr> args) {
  return pypto::ops::OpRegistry::Global().Create(name, std::move(args), {}, pypto::Span());
}

// def k(src, dst, n): t = exp(src); d1 = assemble(dst, t, [0]); d2 = d1; return <returns>
FunctionPtr Kernel(const std::function<std::vector<ExprPtr>(const VarPtr&, const VarPtr&, const VarPtr&,
                                                            const VarPtr&)>& returns) {
  auto src = Var::Make("src", Tensor16());
  auto dst = Var::Make("dst", Tensor16());
  auto t = Var::Make("t", Tensor16());
  auto d1 = Var::Make("d1", Tensor16());
  auto d2 = Var::Make("d2", Tensor16());
  auto body = MakeSeq({AssignStmt::Make(t, Op("tensor.exp", {src})),
                       AssignStmt::Make(d1, Op("tensor.assemble", {dst, t, MakeTuple::Make({Int(0)})})),
                       AssignStmt::Make(d2, d1), ReturnStmt::Make(returns(src, dst, t, d2))});
  std::vector<TypePtr> types(returns(src, dst, t, d2).size(), Tensor16());
  return Function::Make("k", FunctionType::InCore, {src, dst}, {ParamDirection::In, ParamDirection::Out}, types,
                        body);
}

}  // namespace

TEST(ResultParams, ParametersAndInPlaceUpdatesOfThemAreTraced) {
  auto k = Kernel([](const VarPtr& src, const VarPtr& dst, const VarPtr&, const VarPtr& d2) {
    return std::vector<ExprPtr>{dst, d2, src};
  });
  EXPECT_EQ(ResultParams(*k), (std::vector<int>{1, 1, 0}));
}

TEST(ResultParams, FreshValuesAreNotParameters) {
  auto k = Kernel([](const VarPtr&, const VarPtr&, const VarPtr& t, const VarPtr&) { return std::vector<ExprPtr>{t}; });
  EXPECT_EQ(ResultParams(*k), (std::vector<int>{-1}));
}

// def k(src, dst): for i, (acc,) in range(2, init_values=(dst,)): a2 = assemble(acc, exp(src), [0]); yield a2
//                  return <loop result>
TEST(ResultParams, ALoopCarriedTensorIsItsInitValuesBuffer) {
  auto src = Var::Make("src", Tensor16());
  auto dst = Var::Make("dst", Tensor16());
  auto i = Var::Make("i", ScalarType::Make(DataType::INDEX));
  auto acc = IterArg::Make("acc", Tensor16(), dst);
  auto t = Var::Make("t", Tensor16());
  auto a2 = Var::Make("a2", Tensor16());
  auto done = Var::Make("done", Tensor16());
  auto op = [](const std::string& name, std::vector<ExprPtr> args) {
    return pypto::ops::OpRegistry::Global().Create(name, std::move(args), {}, pypto::Span());
  };
  auto body = MakeSeq({AssignStmt::Make(t, op("tensor.exp", {src})),
                       AssignStmt::Make(a2, op("tensor.assemble", {acc, t, MakeTuple::Make({Int(0)})})),
                       YieldStmt::Make({a2})});
  auto loop = ForStmt::Make(i, Int(0), Int(2), Int(1), {acc}, body, {done});
  auto k = Function::Make("k", FunctionType::InCore, {src, dst}, {ParamDirection::In, ParamDirection::Out},
                          {Tensor16()}, MakeSeq({loop, ReturnStmt::Make({done})}));
  EXPECT_EQ(ResultParams(*k), (std::vector<int>{1}));
}
