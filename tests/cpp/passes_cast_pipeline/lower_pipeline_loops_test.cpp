#include "lower_pipeline_loops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unordered_map>

#include "pypto/ir/printer.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

using passes::LowerPipelineLoopsPass;

ProgramPtr Lowered(const ProgramPtr& program) {
  EXPECT_VALID_IR(program);
  LowerPipelineLoopsPass pass;
  pass::PassContext ctx;
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_VALID_IR(out);
  EXPECT_TRUE(DefinesEachVarOnce(out));
  return out;
}

Error LowerError(const ProgramPtr& program) {
  LowerPipelineLoopsPass pass;
  pass::PassContext ctx;
  try {
    pass.Run(program, ctx);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "LowerPipelineLoops accepted the program";
  return Error(ErrorKind::kInternal, "no error");
}

StmtPtr PipelineLoop(const VarPtr& var, ExprPtr start, ExprPtr stop, int64_t step, int64_t stages, StmtPtr body,
                     std::vector<IterArgPtr> iter_args = {}, std::vector<VarPtr> return_vars = {}) {
  return ForStmt::Make(var, std::move(start), std::move(stop), Int(step), std::move(iter_args), std::move(body),
                       std::move(return_vars), ForKind::Pipeline, {{"stage", stages}}, Span("kernel.py", 4, 5));
}

// Runs scalar programs (integer assignments, loops, yields, returns) so that
// the lowered loops can be checked against the original iteration order.
class ScalarRunner {
 public:
  int64_t Run(const ProgramPtr& program, const std::vector<int64_t>& args) {
    const auto& f = program->functions.at(0);
    for (size_t i = 0; i < args.size(); ++i) values_[f->params[i].get()] = args[i];
    Exec(f->body);
    return result_;
  }

 private:
  int64_t Eval(const ExprPtr& e) {
    if (auto c = AsConstInt(e)) return *c;
    if (auto var = As<Var>(e)) return values_.at(var.get());
    auto bin = As<BinaryExpr>(e);
    if (!bin) ADD_FAILURE() << "cannot evaluate " << PrintNode(e);
    int64_t a = Eval(bin->lhs), b = Eval(bin->rhs);
    switch (bin->op) {
      case BinaryOp::Add: return a + b;
      case BinaryOp::Sub: return a - b;
      case BinaryOp::Mul: return a * b;
      case BinaryOp::Max: return std::max(a, b);
      case BinaryOp::FloorDiv: return a / b - ((a % b != 0) && ((a % b < 0) != (b < 0)) ? 1 : 0);
      default: ADD_FAILURE() << "unexpected operator in " << PrintNode(e); return 0;
    }
  }

  void Exec(const StmtPtr& s) {
    if (auto seq = As<SeqStmts>(s)) {
      for (const auto& child : seq->stmts) Exec(child);
    } else if (auto assign = As<AssignStmt>(s)) {
      values_[assign->var.get()] = Eval(assign->value);
    } else if (auto yield = As<YieldStmt>(s)) {
      yielded_.clear();
      for (const auto& v : yield->values) yielded_.push_back(Eval(v));
    } else if (auto ret = As<ReturnStmt>(s)) {
      result_ = Eval(ret->values.at(0));
    } else if (auto loop = As<ForStmt>(s)) {
      RunLoop(*loop);
    } else {
      ADD_FAILURE() << "unexpected statement " << PrintNode(s);
    }
  }

  void RunLoop(const ForStmt& loop) {
    EXPECT_EQ(loop.for_kind, ForKind::Sequential);
    const int64_t start = Eval(loop.start), stop = Eval(loop.stop), step = Eval(loop.step);
    for (const auto& ia : loop.iter_args) values_[ia.get()] = Eval(ia->init_value);
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      values_[loop.loop_var.get()] = i;
      Exec(loop.body);
      for (size_t j = 0; j < loop.iter_args.size(); ++j) values_[loop.iter_args[j].get()] = yielded_.at(j);
    }
    for (size_t j = 0; j < loop.return_vars.size(); ++j)
      values_[loop.return_vars[j].get()] = values_.at(loop.iter_args[j].get());
  }

  std::unordered_map<const Var*, int64_t> values_;
  std::vector<int64_t> yielded_;
  int64_t result_ = 0;
};

// acc = acc * 3 + i over the loop: the result depends on every index and on their order.
ProgramPtr OrderSensitive(ExprPtr start, ExprPtr stop, int64_t step, int64_t stages, const VarPtr& n,
                          const VarPtr& seed) {
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", Scalar(DataType::INDEX), seed);
  auto next = IndexVar("next");
  auto total = IndexVar("total");
  auto loop = PipelineLoop(i, std::move(start), std::move(stop), step, stages,
                           Seq({Assign(next, Bin(BinaryOp::Add, Bin(BinaryOp::Mul, acc, Int(3)), i)), Yield({next})}),
                           {acc}, {total});
  return ProgramOf({n, seed}, Seq({loop, Return({total})}), {Scalar(DataType::INDEX)});
}

int64_t Reference(int64_t start, int64_t stop, int64_t step, int64_t seed) {
  int64_t acc = seed;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) acc = acc * 3 + i;
  return acc;
}

TEST(LowerPipelineLoops, DescribesItself) {
  LowerPipelineLoopsPass pass;
  EXPECT_EQ(pass.name(), "LowerPipelineLoops");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::SSAForm));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::PipelineLoopsLowered));
}

// Every trip count, stage count and step, with static bounds (straight-line
// leftovers) and a run-time stop (a remainder loop), runs the original
// iterations in order.
TEST(LowerPipelineLoops, RunsEveryIterationOnceInOrder) {
  for (int64_t stages : {1, 2, 3, 4}) {
    for (int64_t step : {1, 2, 3, -1, -2}) {
      for (int64_t start : {0, 5}) {
        for (int64_t trips = -3; trips <= 9; ++trips) {  // negative: stop lies behind start
          for (int64_t slack : {0, 1}) {
            if (slack >= (step > 0 ? step : -step)) continue;
            const int64_t stop = start + trips * step - (step > 0 ? slack : -slack);
            const int64_t expected = Reference(start, stop, step, 7);
            auto n = IndexVar("n");
            auto seed = IndexVar("seed");
            auto fixed = Lowered(OrderSensitive(Int(start), Int(stop), step, stages, n, seed));
            EXPECT_EQ(ScalarRunner().Run(fixed, {0, 7}), expected)
                << "static " << start << ".." << stop << " step " << step << " stage " << stages;
            auto dynamic = Lowered(OrderSensitive(Int(start), n, step, stages, n, seed));
            EXPECT_EQ(ScalarRunner().Run(dynamic, {stop, 7}), expected)
                << "dynamic " << start << ".." << stop << " step " << step << " stage " << stages;
          }
        }
      }
    }
  }
}

// Ping-pong: two copies of the body per iteration of a loop stepping by 2,
// each with its own tiles; the iter_arg passes from copy 0 to copy 1; the
// fifth iteration follows the loop as one more copy.
TEST(LowerPipelineLoops, ReplicatesTheBodyWithFreshTilesAndThreadsIterArgs) {
  auto tile_type = TileType::Make(std::vector<int64_t>{16, 64}, DataType::FP32);
  auto n = Var::Make("n", tile_type);
  auto i = IndexVar("i");
  auto acc = IterArg::Make("acc", tile_type, n);
  auto t = Var::Make("t", tile_type);
  auto sum = Var::Make("sum", tile_type);
  auto total = Var::Make("total", tile_type);
  auto body = Seq({Assign(t, CallOp("test.load", {i}, tile_type)), Assign(sum, CallOp("test.add", {acc, t}, tile_type)),
                   Yield({sum})});
  auto program = ProgramOf({n}, Seq({PipelineLoop(i, Int(0), Int(5), 1, 2, body, {acc}, {total}), Return({total})}));

  auto i2 = IndexVar("i");
  auto acc2 = IterArg::Make("acc", tile_type, n);
  auto t_s0 = Var::Make("t_s0", tile_type), sum_s0 = Var::Make("sum_s0", tile_type);
  auto t_s1 = Var::Make("t_s1", tile_type), sum_s1 = Var::Make("sum_s1", tile_type);
  auto total_main = Var::Make("total_main", tile_type);
  auto t_r0 = Var::Make("t_r0", tile_type), sum_r0 = Var::Make("sum_r0", tile_type);
  auto grouped = ForStmt::Make(i2, Int(0), Int(4), Int(2), {acc2},
                               Seq({Assign(t_s0, CallOp("test.load", {i2}, tile_type)),
                                    Assign(sum_s0, CallOp("test.add", {acc2, t_s0}, tile_type)),
                                    Assign(t_s1, CallOp("test.load", {Bin(BinaryOp::Add, i2, Int(1))}, tile_type)),
                                    Assign(sum_s1, CallOp("test.add", {sum_s0, t_s1}, tile_type)), Yield({sum_s1})}),
                               {total_main}, ForKind::Sequential, {{"pipeline_stages", int64_t{2}}});
  auto expected = ProgramOf({n}, Seq({grouped, Assign(t_r0, CallOp("test.load", {Int(4)}, tile_type)),
                                      Assign(sum_r0, CallOp("test.add", {total_main, t_r0}, tile_type)),
                                      Assign(total, sum_r0), Return({total})}));
  auto out = Lowered(program);
  EXPECT_SAME_IR(out, expected);
  EXPECT_NE(PrintProgram(out).find("t_s1"), std::string::npos) << PrintProgram(out);
}

TEST(LowerPipelineLoops, OneStageIsASequentialLoop) {
  auto i = IndexVar("i");
  auto body = Seq({Eval(CallOp("test.touch", {i}))});
  auto program = ProgramOf({}, Seq({PipelineLoop(i, Int(0), Int(8), 1, 1, body), Return({})}));
  auto expected = ProgramOf({}, Seq({ForStmt::Make(i, Int(0), Int(8), Int(1), {}, body, {}), Return({})}));
  EXPECT_SAME_IR(Lowered(program), expected);
}

TEST(LowerPipelineLoops, LowersNestedPipelineLoopsInsideEveryCopy) {
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto inner = PipelineLoop(j, Int(0), Int(4), 1, 2, Seq({Eval(CallOp("test.touch", {i, j}))}));
  auto program = ProgramOf({}, Seq({PipelineLoop(i, Int(0), Int(4), 1, 2, Seq({inner})), Return({})}));
  auto out = Lowered(program);
  const std::string text = PrintProgram(out);
  EXPECT_EQ(text.find("pl.pipeline"), std::string::npos) << text;
  size_t loops = 0;
  for (size_t at = text.find("pl.range"); at != std::string::npos; at = text.find("pl.range", at + 1)) ++loops;
  EXPECT_EQ(loops, 3u) << text;  // the outer loop and one inner loop per outer copy
}

TEST(LowerPipelineLoops, RejectsABadStageCount) {
  auto i = IndexVar("i");
  auto program =
      ProgramOf({}, Seq({PipelineLoop(i, Int(0), Int(4), 1, 0, Seq({Eval(CallOp("test.touch", {i}))})), Return({})}));
  Error e = LowerError(program);
  EXPECT_NE(e.message().find("in function 'main', the pl.pipeline loop over 'i' has stage=0"), std::string::npos)
      << e.message();
  EXPECT_EQ(e.span().begin_line, 4);
}

TEST(LowerPipelineLoops, RejectsARunTimeStep) {
  auto s = IndexVar("s");
  auto i = IndexVar("i");
  auto loop = ForStmt::Make(i, Int(0), Int(8), s, {}, Seq({Eval(CallOp("test.touch", {i}))}), {}, ForKind::Pipeline,
                            {{"stage", int64_t{2}}});
  Error e = LowerError(ProgramOf({s}, Seq({loop, Return({})})));
  EXPECT_NE(e.message().find("has a step that is not an integer literal"), std::string::npos) << e.message();
}

}  // namespace
}  // namespace pypto::test
