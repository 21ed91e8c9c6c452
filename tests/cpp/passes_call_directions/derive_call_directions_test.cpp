#include "derive_call_directions.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"

namespace pypto::test {
namespace {

using passes::DeriveCallDirectionsPass;
using Directions = std::vector<std::string>;

// kernel(x: In, alpha: Scalar, out: Out) -> out ; update(acc: InOut) -> acc
FunctionPtr Kernel() {
  auto x = TensorVar("x");
  auto alpha = ScalarVar("alpha", DataType::FP32);
  auto out = TensorVar("out");
  return Fn("kernel", FunctionType::InCore, {x, alpha, out},
            {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {Tensor16()}, Seq({Return({out})}));
}
FunctionPtr Update() {
  auto acc = TensorVar("acc");
  return Fn("update", FunctionType::InCore, {acc}, {ParamDirection::InOut}, {Tensor16()}, Seq({Return({acc})}));
}

ExprPtr KernelCall(const ExprPtr& x, const ExprPtr& alpha, const ExprPtr& out, const Directions& directions = {}) {
  Attrs attrs;
  if (!directions.empty()) attrs.Set("arg_directions", directions);
  return CallFn("kernel", {x, alpha, out}, Tensor16(), attrs);
}
ExprPtr UpdateCall(const ExprPtr& acc, const Directions& directions = {}) {
  Attrs attrs;
  if (!directions.empty()) attrs.Set("arg_directions", directions);
  return CallFn("update", {acc}, Tensor16(), attrs);
}

// The orchestration main(x, alpha, out, acc) with `body`, plus the two kernels.
struct Orch {
  VarPtr x = TensorVar("x");
  VarPtr alpha = ScalarVar("alpha", DataType::FP32);
  VarPtr out = TensorVar("out");
  VarPtr acc = TensorVar("acc");
  ParamDirection out_direction = ParamDirection::Out;
  ProgramPtr With(StmtPtr body) const {
    return Program::Make("test", {Fn("main", FunctionType::Orchestration, {x, alpha, out, acc},
                                     {ParamDirection::In, ParamDirection::In, out_direction, ParamDirection::InOut}, {},
                                     std::move(body)),
                                  Kernel(), Update()});
  }
};

TEST(DeriveCallDirections, DescribesItself) {
  DeriveCallDirectionsPass pass;
  EXPECT_EQ(pass.name(), "DeriveCallDirections");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SplitIncoreOrch));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::CallDirectionsResolved));
}

TEST(DeriveCallDirections, MapsParamDirectionsAndScalarsAndLeavesFirstOutputsExisting) {
  Orch in;
  auto r1 = TensorVar("r1");
  auto r2 = TensorVar("r2");
  auto program =
      in.With(Seq({Assign(r1, KernelCall(in.x, in.alpha, in.out)), Assign(r2, UpdateCall(in.acc)), Return({})}));
  Orch ex;
  auto e1 = TensorVar("r1");
  auto e2 = TensorVar("r2");
  auto expected = ex.With(Seq({Assign(e1, KernelCall(ex.x, ex.alpha, ex.out, {"Input", "Scalar", "OutputExisting"})),
                               Assign(e2, UpdateCall(ex.acc, {"InOut"})), Return({})}));
  ProgramPtr result = RunPass<DeriveCallDirectionsPass>(program);
  EXPECT_SAME_IR(result, expected);
  EXPECT_EQ(
      PrintProgram(result),
      "# pypto.program: test\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class test:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def kernel(self, x: pl.Tensor[[16, 16], pl.FP32], alpha: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        return out\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[16, 16], pl.FP32], alpha: pl.Scalar[pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], acc: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]):\n"
      "        r1: pl.Tensor[[16, 16], pl.FP32] = self.kernel(x, alpha, out, attrs={\"arg_directions\": [\"Input\", \"Scalar\", \"OutputExisting\"]})\n"
      "        r2: pl.Tensor[[16, 16], pl.FP32] = self.update(acc, attrs={\"arg_directions\": [\"InOut\"]})\n"
      "        return\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def update(self, acc: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        return acc\n");
}

// A second write of `out`, through the first call's result and through a slice of it, is InOut.
TEST(DeriveCallDirections, PromotesOutputsWhoseBufferAnEarlierCallWrote) {
  auto build = [](const Orch& o, bool annotated) {
    auto r1 = TensorVar("r1");
    auto r2 = TensorVar("r2");
    auto whole = TensorVar("whole");
    auto r3 = TensorVar("r3");
    auto view = ops::OpRegistry::Global().Create("tensor.reshape", {o.out, Tuple({16, 16})});
    auto d = [&](Directions ds) { return annotated ? ds : Directions{}; };
    return o.With(Seq({Assign(r1, KernelCall(o.x, o.alpha, o.out, d({"Input", "Scalar", "OutputExisting"}))),
                       Assign(r2, KernelCall(o.x, o.alpha, r1, d({"Input", "Scalar", "InOut"}))), Assign(whole, view),
                       Assign(r3, KernelCall(o.x, o.alpha, whole, d({"Input", "Scalar", "InOut"}))), Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(Orch(), false)), build(Orch(), true));
}

TEST(DeriveCallDirections, PromotesOutputsInSequentialLoopsButNotInParallelOnes) {
  auto build = [](const Orch& o, bool annotated) {
    auto i = IndexVar("i");
    auto j = IndexVar("j");
    auto r1 = TensorVar("r1");
    auto r2 = TensorVar("r2");
    auto d = [&](Directions ds) { return annotated ? ds : Directions{}; };
    auto parallel =
        ForStmt::Make(j, Int(0), Int(4), Int(1), {},
                      Seq({Assign(r1, KernelCall(o.x, o.alpha, o.out, d({"Input", "Scalar", "OutputExisting"})))}), {},
                      ForKind::Parallel);
    auto sequential =
        ForStmt::Make(i, Int(0), Int(4), Int(1), {},
                      Seq({Assign(r2, KernelCall(o.x, o.alpha, o.x, d({"Input", "Scalar", "InOut"})))}), {});
    return o.With(Seq({parallel, sequential, Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(Orch(), false)), build(Orch(), true));
}

TEST(DeriveCallDirections, PromotesOutputsInWhileLoops) {
  auto build = [](const Orch& o, bool annotated) {
    auto k = IterArg::Make("k", Scalar(DataType::INDEX), Int(0));
    auto k1 = IndexVar("k1");
    auto kend = IndexVar("kend");
    auto r = TensorVar("r");
    Directions d = annotated ? Directions{"Input", "Scalar", "InOut"} : Directions{};
    auto loop = WhileStmt::Make(
        Bin(BinaryOp::Lt, k, Int(4)), {k},
        Seq({Assign(r, KernelCall(o.x, o.alpha, o.out, d)), Assign(k1, Bin(BinaryOp::Add, k, Int(1))), Yield({k1})}),
        {kend});
    return o.With(Seq({loop, Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(Orch(), false)), build(Orch(), true));
}

// The parallel loop's iter_arg starts as `out`, which the first call wrote: same buffer, so InOut.
TEST(DeriveCallDirections, FollowsIterArgsBackToTheirInitBuffer) {
  auto build = [](const Orch& o, bool annotated) {
    auto r0 = TensorVar("r0");
    auto j = IndexVar("j");
    auto buf = IterArg::Make("buf", Tensor16(), o.out);
    auto r1 = TensorVar("r1");
    auto final_buf = TensorVar("final_buf");
    auto d = [&](Directions ds) { return annotated ? ds : Directions{}; };
    auto loop =
        ForStmt::Make(j, Int(0), Int(4), Int(1), {buf},
                      Seq({Assign(r1, KernelCall(o.x, o.alpha, buf, d({"Input", "Scalar", "InOut"}))), Yield({r1})}),
                      {final_buf}, ForKind::Parallel);
    return o.With(
        Seq({Assign(r0, KernelCall(o.x, o.alpha, o.out, d({"Input", "Scalar", "OutputExisting"}))), loop, Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(Orch(), false)), build(Orch(), true));
}

TEST(DeriveCallDirections, PromotesOutputsIntoAnEnclosingInOutParameter) {
  auto build = [](bool annotated) {
    Orch o;
    o.out_direction = ParamDirection::InOut;
    auto r = TensorVar("r");
    Directions d = annotated ? Directions{"Input", "Scalar", "InOut"} : Directions{};
    return o.With(Seq({Assign(r, KernelCall(o.x, o.alpha, o.out, d)), Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(false)), build(true));
}

TEST(DeriveCallDirections, KeepsUserNoDepArguments) {
  auto build = [](const Orch& o, Directions d) {
    auto r = TensorVar("r");
    return o.With(Seq({Assign(r, KernelCall(o.x, o.alpha, o.out, d)), Return({})}));
  };
  EXPECT_SAME_IR(RunPass<DeriveCallDirectionsPass>(build(Orch(), {"NoDep", "Scalar", "Input"})),
                 build(Orch(), {"NoDep", "Scalar", "OutputExisting"}));
}

TEST(DeriveCallDirections, LeavesKernelsAndNonKernelCallsAlone) {
  auto x = TensorVar("x");
  auto r = TensorVar("r");
  auto helper_x = TensorVar("hx");
  auto helper = Fn("helper", FunctionType::Opaque, {helper_x}, {}, {Tensor16()}, Seq({Return({helper_x})}));
  auto program = Program::Make(
      "test", {Fn("main", FunctionType::Orchestration, {x}, {}, {},
                  Seq({Assign(r, Call::Make(GlobalVar::Make("helper"), {x}, {}, Tensor16())), Return({})})),
               helper, Kernel()});
  EXPECT_EQ(RunPass<DeriveCallDirectionsPass>(program), program);
}

}  // namespace
}  // namespace pypto::test
