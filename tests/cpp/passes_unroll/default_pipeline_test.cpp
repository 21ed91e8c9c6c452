// UnrollLoops and Simplify as the plugin host loads them: created by name
// from their plugins and run by the default pipeline.
#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/ir/printer.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"

namespace pypto::test {
namespace {

TEST(PassPlugins, ProvideTheirPassesByName) {
  auto& registry = pass::PassRegistry::Global();
  auto unroll = registry.Create("UnrollLoops");
  auto simplify = registry.Create("Simplify");
  EXPECT_EQ(unroll->name(), "UnrollLoops");
  EXPECT_TRUE(unroll->produced().Has(pass::IRProperty::NoUnrollLoops));
  EXPECT_EQ(simplify->name(), "Simplify");
  EXPECT_EQ(simplify->option_specs().size(), 3u);
}

TEST(PassPlugins, DefaultPipelineUnrollsThenFoldsToALiteral) {
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), Int(0));
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto loop = ForStmt::Make(i, Int(0), Int(4), Int(1), {acc},
                            Seq({Assign(next, Bin(BinaryOp::Add, acc, Bin(BinaryOp::Mul, i, i))), Yield({next})}),
                            {total}, ForKind::Unroll);
  auto program = ProgramOf({}, Seq({loop, Return({total})}), {Scalar(DataType::INDEX)});

  auto manager = pass::PassManager::FromPipeline("default");
  pass::PassContext ctx;
  ctx.set_verify(true);
  auto out = manager.Run(program, ctx);
  EXPECT_EQ(PrintProgram(out),
            "# pypto.program: test\n"
            "import pypto.language as pl\n"
            "\n"
            "@pl.program\n"
            "class test:\n"
            "    @pl.function\n"
            "    def main(self) -> pl.Scalar[pl.INDEX]:\n"
            "        return 14\n");
  EXPECT_TRUE(ctx.properties().Has(pass::IRProperty::NoUnrollLoops));
}

}  // namespace
}  // namespace pypto::test
