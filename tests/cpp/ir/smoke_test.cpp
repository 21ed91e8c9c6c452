#include <gtest/gtest.h>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"

using namespace pypto::ir;

TEST(IRSmoke, BuildsAForLoopWithIterArgs) {
  auto n = Var::Make("n", ScalarType::Make(DataType::INDEX));
  auto acc0 = Var::Make("acc0", ScalarType::Make(DataType::INDEX));
  auto i = Var::Make("i", ScalarType::Make(DataType::INDEX));
  auto acc = IterArg::Make("acc", acc0->type, acc0);
  auto next = Var::Make("next", acc0->type);
  auto total = Var::Make("total", acc0->type);
  auto body = MakeSeq({AssignStmt::Make(next, BinaryExpr::Make(BinaryOp::Add, acc, i)), YieldStmt::Make({next})});
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {acc}, body, {total});
  EXPECT_EQ(loop->iter_args.size(), 1u);
  EXPECT_TRUE(IsA<Stmt>(StmtPtr(loop)));
  EXPECT_EQ(As<ForStmt>(StmtPtr(loop)), loop);
  EXPECT_EQ(As<IfStmt>(StmtPtr(loop)), nullptr);
}
