// OutlineIncoreScopes followed by DeriveCallDirections on a pl.at region in a
// sequential loop that carries the output buffer: the region becomes a kernel
// whose Out param is promoted to InOut at the call, because every iteration
// writes the same buffer.
#include <gtest/gtest.h>

#include "derive_call_directions.h"
#include "outline_scopes.h"
#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"

namespace pypto::test {
namespace {

TEST(OutlineThenDerive, ALoopCarriedOutputBecomesAnOutParamPassedAsInOut) {
  // for i, (acc,) in pl.range(0, 4, init_values=(out,)):
  //     with pl.at(level=pl.Level.CORE_GROUP):
  //         t = x + 1.0
  //         acc1 = pl.tensor.assemble(acc, t, [0, 0])
  //     res = pl.yield_(acc1)
  // return res
  auto x = TensorVar("x");
  auto out = TensorVar("out");
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Tensor16(), out);
  auto t = TensorVar("t");
  auto acc1 = TensorVar("acc1");
  auto res = TensorVar("res");
  auto scope = ScopeStmt::Make(ScopeKind::InCore,
                               Seq({Assign(t, Op("tensor.adds", {x, Float(1.0)})),
                                    Assign(acc1, Op("tensor.assemble", {acc, t, Tuple({0, 0})}))}));
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {acc}, Seq({scope, Yield({acc1})}), {res});
  auto main = Function::Make("main", FunctionType::Opaque, {x, out}, {ParamDirection::In, ParamDirection::Out},
                             {Tensor16()}, Seq({loop, Return({res})}));
  auto program = Program::Make("test", {main});
  ASSERT_EQ(AllVerifierErrors(program), "");

  pass::PassContext ctx;
  ProgramPtr outlined = passes::OutlineIncoreScopesPass().Run(program, ctx);
  ASSERT_EQ(AllVerifierErrors(outlined), "");
  ProgramPtr derived = passes::DeriveCallDirectionsPass().Run(outlined, ctx);
  EXPECT_EQ(AllVerifierErrors(derived), "");
  EXPECT_EQ(
      PrintProgram(derived),
      "# pypto.program: test\n"
      "import pypto.language as pl\n"
      "\n"
      "@pl.program\n"
      "class test:\n"
      "    @pl.function(type=pl.FunctionType.Orchestration)\n"
      "    def main(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        for i, (acc,) in pl.range(0, 4, 1, init_values=(out,)):\n"
      "            acc1: pl.Tensor[[16, 16], pl.FP32] = self.main_incore_0(x, acc, attrs={\"arg_directions\": [\"Input\", \"InOut\"]})\n"
      "            res: pl.Tensor[[16, 16], pl.FP32] = pl.yield_(acc1)\n"
      "        return res\n"
      "\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def main_incore_0(self, x: pl.Tensor[[16, 16], pl.FP32], acc: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:\n"
      "        t: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.adds(x, 1.0)\n"
      "        acc1: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.assemble(acc, t, [0, 0])\n"
      "        return acc\n");
}

}  // namespace
}  // namespace pypto::test
