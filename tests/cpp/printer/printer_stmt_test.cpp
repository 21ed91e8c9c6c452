// Statements: assignments, control flow with yields, loops, scopes, comments.
#include "printer_test_util.h"

namespace pypto::ir {
namespace {

using namespace printer_test;
using B = BinaryOp;

class PrinterStmtTest : public ::testing::Test {
 protected:
  VarPtr a = ScalarVar("a");
  VarPtr b = ScalarVar("b");
  VarPtr n = ScalarVar("n");
  VarPtr p = ScalarVar("p", DataType::BOOL);
};

TEST_F(PrinterStmtTest, AssignIsAnnotatedOnlyInVerboseMode) {
  auto x = ScalarVar("x");
  auto assign = AssignStmt::Make(x, Bin(B::Add, a, Int(1)));
  EXPECT_EQ(Print(assign), "x: pl.Scalar[pl.INDEX] = a + 1\n");
  EXPECT_EQ(PrintConcise(assign), "x = a + 1\n");

  auto src = Var::Make("src", TensorType::Make({64, 64}, DataType::FP32));
  auto t = Var::Make("t", TileType::Make({64, 64}, DataType::FP32, MemorySpace::Vec));
  auto load = AssignStmt::Make(t, OpCall("tile.load", {src, List({Int(0), Int(0)}), List({Int(64), Int(64)})}));
  EXPECT_EQ(Print(load), "t: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(src, [0, 0], [64, 64])\n");

  auto untyped = Var::Make("u", UnknownType::Make());
  EXPECT_EQ(Print(AssignStmt::Make(untyped, OpCall("tile.op", {a}))), "u = pl.tile.op(a)\n");
}

TEST_F(PrinterStmtTest, SubmitsTakenApartRightAwayPrintAsOneUnpacking) {
  auto submit = Submit::Make(Call::Make(GlobalVar::Make("k"), {a}, {}, ScalarOf()), {});
  auto typed_task = Var::Make("task", submit->type);
  auto r = ScalarVar("r");
  auto tid = ScalarVar("tid", DataType::TASK_ID);
  auto take = [&](const VarPtr& v, int64_t i) { return AssignStmt::Make(v, TupleGetItem::Make(typed_task, i)); };
  EXPECT_EQ(Print(Seq({AssignStmt::Make(typed_task, submit), take(r, 0), take(tid, 1)})),
            "r, tid = pl.submit(self.k, a)\n");
  EXPECT_EQ(Print(Seq({AssignStmt::Make(typed_task, submit), take(r, 0), Eval(r)})),
            "r, _ = pl.submit(self.k, a)\nr\n");
  // Another use of the tuple keeps it named.
  EXPECT_EQ(Print(Seq({AssignStmt::Make(typed_task, submit), take(r, 0), ReturnStmt::Make({typed_task})})),
            "task: pl.Tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.TASK_ID]] = pl.submit(self.k, a)\n"
            "r: pl.Scalar[pl.INDEX] = task[0]\nreturn task\n");
}

TEST_F(PrinterStmtTest, EvalReturnBreakContinue) {
  EXPECT_EQ(Print(Eval(OpCall("system.barrier", {}))), "pl.system.barrier()\n");
  EXPECT_EQ(Print(ReturnStmt::Make({})), "return\n");
  EXPECT_EQ(Print(ReturnStmt::Make({a})), "return a\n");
  EXPECT_EQ(Print(ReturnStmt::Make({a, Bin(B::Add, a, b)})), "return a, a + b\n");
  EXPECT_EQ(Print(ReturnStmt::Make({List({a, b})})), "return [a, b]\n");
  EXPECT_EQ(Print(BreakStmt::Make()), "break\n");
  EXPECT_EQ(Print(ContinueStmt::Make()), "continue\n");
}

TEST_F(PrinterStmtTest, IfWithoutResults) {
  auto stmt = IfStmt::Make(Bin(B::Gt, a, Int(0)), Eval(OpCall("tile.op", {a})), nullptr);
  EXPECT_EQ(Print(stmt), "if a > 0:\n    pl.tile.op(a)\n");
  auto with_else = IfStmt::Make(p, Seq({}), Eval(OpCall("tile.op", {b})));
  EXPECT_EQ(Print(with_else),
            "if p:\n"
            "    pass\n"
            "else:\n"
            "    pl.tile.op(b)\n");
}

TEST_F(PrinterStmtTest, IfBranchesYieldIntoItsReturnVars) {
  auto r = ScalarVar("r");
  auto single = IfStmt::Make(Bin(B::Lt, a, b), YieldStmt::Make({a}), YieldStmt::Make({b}), {r});
  EXPECT_EQ(Print(single),
            "if a < b:\n"
            "    r: pl.Scalar[pl.INDEX] = pl.yield_(a)\n"
            "else:\n"
            "    r: pl.Scalar[pl.INDEX] = pl.yield_(b)\n");
  EXPECT_EQ(PrintConcise(single),
            "if a < b:\n"
            "    r = pl.yield_(a)\n"
            "else:\n"
            "    r = pl.yield_(b)\n");

  auto x0 = ScalarVar("x0");
  auto s = ScalarVar("s");
  auto pair = IfStmt::Make(p, Seq({AssignStmt::Make(x0, Bin(B::Add, a, Int(1))), YieldStmt::Make({x0, b})}),
                           YieldStmt::Make({b, a}), {r, s});
  EXPECT_EQ(Print(pair),
            "if p:\n"
            "    x0: pl.Scalar[pl.INDEX] = a + 1\n"
            "    r, s = pl.yield_(x0, b)\n"
            "else:\n"
            "    r, s = pl.yield_(b, a)\n");
}

TEST_F(PrinterStmtTest, ForWithoutIterArgs) {
  auto i = ScalarVar("i");
  auto loop = ForStmt::Make(i, Int(0), n, Int(1), {}, Eval(OpCall("tile.op", {i})), {});
  EXPECT_EQ(Print(loop),
            "for i in pl.range(0, n, 1):\n"
            "    pl.tile.op(i)\n");
}

TEST_F(PrinterStmtTest, ForCarriesIterArgsAndYieldsReturnVars) {
  auto i = ScalarVar("i");
  auto x = ScalarVar("x");
  auto acc = IterArg::Make("acc", ScalarOf(), x);
  auto next = ScalarVar("nxt");
  auto total = ScalarVar("total");
  auto loop = ForStmt::Make(i, Int(0), Int(10), Int(2), {acc},
                            Seq({AssignStmt::Make(next, Bin(B::Add, acc, i)), YieldStmt::Make({next})}), {total});
  EXPECT_EQ(Print(loop),
            "for i, (acc,) in pl.range(0, 10, 2, init_values=(x,)):\n"
            "    nxt: pl.Scalar[pl.INDEX] = acc + i\n"
            "    total: pl.Scalar[pl.INDEX] = pl.yield_(nxt)\n");
  EXPECT_EQ(PrintConcise(loop),
            "for i, (acc,) in pl.range(0, 10, 2, init_values=(x,)):\n"
            "    nxt = acc + i\n"
            "    total = pl.yield_(nxt)\n");

  auto u = IterArg::Make("u", ScalarOf(), a);
  auto v = IterArg::Make("v", ScalarOf(), Int(0));
  auto ru = ScalarVar("ru");
  auto rv = ScalarVar("rv");
  auto swap = ForStmt::Make(i, Int(0), n, Int(1), {u, v}, YieldStmt::Make({v, u}), {ru, rv});
  EXPECT_EQ(Print(swap),
            "for i, (u, v) in pl.range(0, n, 1, init_values=(a, 0)):\n"
            "    ru, rv = pl.yield_(v, u)\n");
}

TEST_F(PrinterStmtTest, ForKindsAndLoopAttrs) {
  auto i = ScalarVar("i");
  auto body = Eval(OpCall("tile.op", {i}));
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {}, body, {}, ForKind::Parallel)),
            "for i in pl.parallel(0, n, 1):\n    pl.tile.op(i)\n");
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), Int(4), Int(1), {}, body, {}, ForKind::Unroll)),
            "for i in pl.unroll(0, 4, 1):\n    pl.tile.op(i)\n");
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {}, Seq({}), {}, ForKind::Pipeline, {{"stage", int64_t{2}}})),
            "for i in pl.pipeline(0, n, 1, stage=2):\n    pass\n");
  auto acc = IterArg::Make("acc", ScalarOf(), Int(0));
  auto out = ScalarVar("out");
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {acc}, YieldStmt::Make({acc}), {out}, ForKind::Pipeline,
                                {{"stage", int64_t{3}}, {"init_values", int64_t{1}}})),
            "for i, (acc,) in pl.pipeline(0, n, 1, init_values=(0,), stage=3, **{\"init_values\": 1}):\n"
            "    out: pl.Scalar[pl.INDEX] = pl.yield_(acc)\n");
}

TEST_F(PrinterStmtTest, BreakAndContinueInsideLoops) {
  auto i = ScalarVar("i");
  auto body = IfStmt::Make(Bin(B::Gt, i, Int(4)), BreakStmt::Make(), ContinueStmt::Make());
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {}, body, {})),
            "for i in pl.range(0, n, 1):\n"
            "    if i > 4:\n"
            "        break\n"
            "    else:\n"
            "        continue\n");
}

TEST_F(PrinterStmtTest, WhileWithIterArgsStatesItsConditionFirst) {
  auto x = IterArg::Make("x", ScalarOf(), Int(0));
  auto x_final = ScalarVar("x_final");
  auto loop = WhileStmt::Make(Bin(B::Lt, x, Int(10)), {x}, YieldStmt::Make({Bin(B::Add, x, Int(1))}), {x_final});
  EXPECT_EQ(Print(loop),
            "for (x,) in pl.while_(init_values=(0,)):\n"
            "    pl.cond(x < 10)\n"
            "    x_final: pl.Scalar[pl.INDEX] = pl.yield_(x + 1)\n");

  auto u = IterArg::Make("u", ScalarOf(), a);
  auto v = IterArg::Make("v", ScalarOf(), Int(1));
  auto ru = ScalarVar("ru");
  auto rv = ScalarVar("rv");
  auto pair = WhileStmt::Make(Bin(B::And, Bin(B::Lt, u, Int(10)), Bin(B::Gt, v, Int(0))), {u, v},
                              YieldStmt::Make({Bin(B::Add, u, Int(1)), Bin(B::Mul, v, Int(2))}), {ru, rv});
  EXPECT_EQ(PrintConcise(pair),
            "for (u, v) in pl.while_(init_values=(a, 1)):\n"
            "    pl.cond(u < 10 and v > 0)\n"
            "    ru, rv = pl.yield_(u + 1, v * 2)\n");
}

TEST_F(PrinterStmtTest, WhileWithoutIterArgsIsAPlainWhile) {
  EXPECT_EQ(Print(WhileStmt::Make(Bin(B::Lt, a, b), {}, Eval(OpCall("tile.op", {a})), {})),
            "while a < b:\n"
            "    pl.tile.op(a)\n");
}

TEST_F(PrinterStmtTest, YieldsWithoutTargets) {
  EXPECT_EQ(Print(YieldStmt::Make({a, b})), "pl.yield_(a, b)\n");
  EXPECT_EQ(Print(YieldStmt::Make({})), "pl.yield_()\n");
  auto i = ScalarVar("i");
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {}, YieldStmt::Make({}), {})),
            "for i in pl.range(0, n, 1):\n"
            "    pl.yield_()\n");
}

TEST_F(PrinterStmtTest, InCoreScopes) {
  auto body = Eval(OpCall("tile.op", {a}));
  EXPECT_EQ(Print(ScopeStmt::Make(ScopeKind::InCore, body)),
            "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.tile.op(a)\n");
  auto split = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, body, "k"));
  split->split = SplitMode::UpDown;
  EXPECT_EQ(Print(split),
            "with pl.at(level=pl.Level.CORE_GROUP, name_hint=\"k\", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n"
            "    pl.tile.op(a)\n");
  auto tid = ScalarVar("tid", DataType::TASK_ID);
  auto with_attrs = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, Seq({})));
  with_attrs->attrs = {{"allow_early_resolve", false},
                       {"deps", std::vector<ExprPtr>{tid}},
                       {"level", int64_t{1}}};
  EXPECT_EQ(Print(with_attrs),
            "with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=False, deps=[tid], **{\"level\": 1}):\n"
            "    pass\n");
}

TEST_F(PrinterStmtTest, HierarchySpmdAndClusterScopes) {
  auto body = Eval(OpCall("tile.op", {a}));
  auto hierarchy = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Hierarchy, body));
  hierarchy->level = Level::HOST;
  hierarchy->role = Role::Orchestrator;
  EXPECT_EQ(Print(hierarchy),
            "with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):\n    pl.tile.op(a)\n");

  auto spmd = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, body, "grid"));
  spmd->core_num = Bin(B::Mul, n, Int(2));
  spmd->sync_start = true;
  EXPECT_EQ(Print(spmd), "with pl.spmd(n * 2, sync_start=True, name_hint=\"grid\"):\n    pl.tile.op(a)\n");
  auto plain_spmd = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, body));
  plain_spmd->core_num = Int(8);
  EXPECT_EQ(Print(plain_spmd), "with pl.spmd(8):\n    pl.tile.op(a)\n");

  EXPECT_EQ(Print(ScopeStmt::Make(ScopeKind::Cluster, body)), "with pl.cluster():\n    pl.tile.op(a)\n");
  EXPECT_EQ(Print(ScopeStmt::Make(ScopeKind::Cluster, body, "c")),
            "with pl.cluster(name_hint=\"c\"):\n    pl.tile.op(a)\n");
}

TEST_F(PrinterStmtTest, TaskIdsPrintAsTheScopeTargetWithDistinctNames) {
  auto first_tid = ScalarVar("tid", DataType::TASK_ID);
  auto second_tid = ScalarVar("tid", DataType::TASK_ID);
  auto first = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, Eval(OpCall("tile.op", {a}))));
  first->task_id = first_tid;
  auto second = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, Eval(OpCall("tile.op", {b})), "g"));
  second->core_num = Int(4);
  second->attrs = {{"deps", std::vector<ExprPtr>{first_tid}}};
  second->task_id = second_tid;
  EXPECT_EQ(Print(Seq({first, second})),
            "with pl.at(level=pl.Level.CORE_GROUP) as tid:\n"
            "    pl.tile.op(a)\n"
            "with pl.spmd(4, name_hint=\"g\", deps=[tid]) as tid_1:\n"
            "    pl.tile.op(b)\n");
}

TEST_F(PrinterStmtTest, LeadingCommentsPrintAboveTheirStatement) {
  auto x = ScalarVar("x");
  auto assign = std::make_shared<AssignStmt>(*AssignStmt::Make(x, Int(1)));
  assign->leading_comments = {"first", "two\nlines", "", "bell\x07here"};
  auto ret = std::make_shared<ReturnStmt>(*ReturnStmt::Make({x}));
  ret->leading_comments = {"done"};
  auto seq = std::make_shared<SeqStmts>(*SeqStmts::Make({assign, ret}));
  seq->leading_comments = {"block"};
  EXPECT_EQ(PrintConcise(seq),
            "# block\n"
            "# first\n"
            "# two\n"
            "# lines\n"
            "#\n"
            "# bell?here\n"
            "x = 1\n"
            "# done\n"
            "return x\n");
}

TEST_F(PrinterStmtTest, NestedBlocksIndentByFourSpaces) {
  auto i = ScalarVar("i");
  auto j = ScalarVar("j");
  auto inner = ForStmt::Make(j, Int(0), i, Int(1), {}, Eval(OpCall("tile.op", {i, j})), {});
  auto scope = ScopeStmt::Make(ScopeKind::InCore, IfStmt::Make(p, inner, nullptr));
  EXPECT_EQ(Print(ForStmt::Make(i, Int(0), n, Int(1), {}, scope, {})),
            "for i in pl.range(0, n, 1):\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        if p:\n"
            "            for j in pl.range(0, i, 1):\n"
            "                pl.tile.op(i, j)\n");
}

}  // namespace
}  // namespace pypto::ir
