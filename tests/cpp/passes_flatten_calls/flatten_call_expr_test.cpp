#include "flatten_call_expr.h"

#include <gtest/gtest.h>

#include "support/pass_test_util.h"
#include "pypto/backend/platform.h"
#include "pypto/ir/printer.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/registry.h"
#include "support/verifier_errors.h"

namespace pypto::test {
namespace {

VarPtr Temp(int k, const ExprPtr& value) { return Var::Make("__tmp_v" + std::to_string(k), value->type); }
ExprPtr IndexCall(const std::string& op, std::vector<ExprPtr> args) {
  return CallOp(op, std::move(args), Scalar(DataType::INDEX));
}

// The front end's shape: an orchestration function whose InCore scope
// assembles the exp of a sum, written as one nested expression.
ProgramPtr NestedChainInScope() {
  auto a = TensorVar("a", {16, 64});
  auto b = TensorVar("b", {16, 64});
  auto out = TensorVar("out", {16, 64});
  auto out_1 = TensorVar("out_1", {16, 64});
  auto nested = Op("tensor.assemble", {out, Op("tensor.exp", {Op("tensor.add", {a, b})}), Tuple({0, 0})});
  auto scope = ScopeStmt::Make(ScopeKind::InCore, Assign(out_1, nested));
  auto f = Function::Make("main", FunctionType::Orchestration, {a, b, out}, {}, {out->type},
                          Seq({scope, Return({out_1})}));
  return Program::Make("test", {f});
}

TEST(FlattenCallExpr, BindsANestedTensorChainInsideAnInCoreScopeInnermostFirst) {
  auto program = NestedChainInScope();
  EXPECT_EQ(AllVerifierErrors(program), "");
  auto out = passes::FlattenCallExpr(program);
  EXPECT_EQ(AllVerifierErrors(out), "");

  auto a = TensorVar("a", {16, 64});
  auto b = TensorVar("b", {16, 64});
  auto o = TensorVar("out", {16, 64});
  auto out_1 = TensorVar("out_1", {16, 64});
  auto sum = Op("tensor.add", {a, b});
  auto t0 = Temp(0, sum);
  auto e = Op("tensor.exp", {t0});
  auto t1 = Temp(1, e);
  auto scope = ScopeStmt::Make(
      ScopeKind::InCore,
      Seq({Assign(t0, sum), Assign(t1, e), Assign(out_1, Op("tensor.assemble", {o, t1, Tuple({0, 0})}))}));
  auto expected = Function::Make("main", FunctionType::Orchestration, {a, b, o}, {}, {o->type},
                                 Seq({scope, Return({out_1})}));
  EXPECT_SAME_IR(out->functions[0], expected);
  EXPECT_EQ(Printed(out),
            "@pl.function(type=pl.FunctionType.Orchestration)\n"
            "def main(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], "
            "pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
            "    with pl.at(level=pl.Level.CORE_GROUP):\n"
            "        __tmp_v0: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(a, b)\n"
            "        __tmp_v1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.exp(__tmp_v0)\n"
            "        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.assemble(out, __tmp_v1, [0, 0])\n"
            "    return out_1\n");
}

ExprPtr Gt0(const ExprPtr& e) { return Bin(BinaryOp::Gt, e, ConstInt::Make(0)); }

// Calls in a keyword, loop bounds, loop attrs, a BinaryExpr operand, an if
// condition, a yield and a return; each lands before its statement, in the
// innermost statement list.
TEST(FlattenCallExpr, BindsCallsInKwargsBoundsConditionsYieldsAndReturns) {
  auto build = [](bool flattened) {
    auto n = IndexVar("n");
    auto x = IndexVar("x");
    auto i = IndexVar("i");
    auto r = IndexVar("r");
    std::vector<StmtPtr> body;
    int k = 0;
    std::vector<StmtPtr>* frame = &body;
    // The flattened form binds `value` to the next temporary in `frame`.
    auto bind = [&](const ExprPtr& value) -> ExprPtr {
      if (!flattened) return value;
      auto t = Temp(k++, value);
      frame->push_back(Assign(t, value));
      return t;
    };
    auto size = bind(IndexCall("sz", {n}));
    body.push_back(Assign(x, Call::Make(Op::Get("k"), {n}, Attrs{{"size", size}}, Scalar(DataType::INDEX))));
    auto start = bind(IndexCall("lo", {n}));
    auto stop = bind(IndexCall("hi", {x}));
    std::vector<StmtPtr> loop_body;
    frame = &loop_body;
    loop_body.push_back(Eval(CallOp("sink", {Bin(BinaryOp::Add, i, bind(IndexCall("g", {i})))})));
    frame = &body;
    auto stage = bind(IndexCall("st", {n}));
    body.push_back(ForStmt::Make(i, start, stop, ConstInt::Make(1), {}, Seq(loop_body), {}, ForKind::Sequential,
                                 Attrs{{"stage", stage}}));
    auto condition = Gt0(bind(IndexCall("f", {n})));
    std::vector<StmtPtr> then_body;
    frame = &then_body;
    auto yielded = bind(IndexCall("g", {n}));
    then_body.push_back(Yield({yielded}));
    frame = &body;
    body.push_back(IfStmt::Make(condition, Seq(then_body), Yield({n}), {r}));
    body.push_back(Return({bind(IndexCall("h", {r}))}));
    return ProgramOf({n}, Seq(body), {Scalar(DataType::INDEX)});
  };
  auto program = build(false);
  EXPECT_VALID_IR(program);
  auto out = passes::FlattenCallExpr(program);
  EXPECT_VALID_IR(out);
  EXPECT_SAME_IR(out, build(true));
  EXPECT_EQ(Printed(out),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    __tmp_v0: pl.Scalar[pl.INDEX] = pl.sz(n)\n"
            "    x: pl.Scalar[pl.INDEX] = pl.k(n, size=__tmp_v0)\n"
            "    __tmp_v1: pl.Scalar[pl.INDEX] = pl.lo(n)\n"
            "    __tmp_v2: pl.Scalar[pl.INDEX] = pl.hi(x)\n"
            "    __tmp_v4: pl.Scalar[pl.INDEX] = pl.st(n)\n"
            "    for i in pl.range(__tmp_v1, __tmp_v2, 1, stage=__tmp_v4):\n"
            "        __tmp_v3: pl.Scalar[pl.INDEX] = pl.g(i)\n"
            "        pl.sink(i + __tmp_v3)\n"
            "    __tmp_v5: pl.Scalar[pl.INDEX] = pl.f(n)\n"
            "    if __tmp_v5 > 0:\n"
            "        __tmp_v6: pl.Scalar[pl.INDEX] = pl.g(n)\n"
            "        r: pl.Scalar[pl.INDEX] = pl.yield_(__tmp_v6)\n"
            "    else:\n"
            "        r: pl.Scalar[pl.INDEX] = pl.yield_(n)\n"
            "    __tmp_v7: pl.Scalar[pl.INDEX] = pl.h(r)\n"
            "    return __tmp_v7\n");
}

// The while condition runs every iteration and keeps its call; the iter_arg's
// init value is bound before the loop and the body's nested call inside it.
TEST(FlattenCallExpr, KeepsWhileConditionCallsAndFlattensInitValuesAndBody) {
  auto build = [](bool flattened) {
    auto n = IndexVar("n");
    auto init = IndexCall("init", {n});
    std::vector<StmtPtr> body;
    ExprPtr init_value = init;
    if (flattened) {
      auto t = Temp(0, init);
      body.push_back(Assign(t, init));
      init_value = t;
    }
    auto c = IterArg::Make("c", Scalar(DataType::INDEX), init_value);
    auto c2 = IndexVar("c2");
    auto done = IndexVar("done");
    auto inner = IndexCall("g", {c});
    std::vector<StmtPtr> loop_body;
    ExprPtr arg = inner;
    if (flattened) {
      auto t = Temp(1, inner);
      loop_body.push_back(Assign(t, inner));
      arg = t;
    }
    loop_body.push_back(Assign(c2, IndexCall("step", {arg})));
    loop_body.push_back(Yield({c2}));
    body.push_back(WhileStmt::Make(Gt0(IndexCall("left", {c})), {c}, Seq(loop_body), {done}));
    body.push_back(Return({done}));
    return ProgramOf({n}, Seq(body), {Scalar(DataType::INDEX)});
  };
  auto program = build(false);
  EXPECT_VALID_IR(program);
  auto out = passes::FlattenCallExpr(program);
  EXPECT_VALID_IR(out);
  EXPECT_SAME_IR(out, build(true));
  EXPECT_EQ(Printed(out),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    __tmp_v0: pl.Scalar[pl.INDEX] = pl.init(n)\n"
            "    for (c,) in pl.while_(init_values=(__tmp_v0,)):\n"
            "        pl.cond(pl.left(c) > 0)\n"
            "        __tmp_v1: pl.Scalar[pl.INDEX] = pl.g(c)\n"
            "        c2: pl.Scalar[pl.INDEX] = pl.step(__tmp_v1)\n"
            "        done: pl.Scalar[pl.INDEX] = pl.yield_(c2)\n"
            "    return done\n");
}

// Tuple elements, tuple items and unary operands: left to right, and a call
// nested in a bound call's argument before that call.
TEST(FlattenCallExpr, BindsCallsInTuplesAndUnaryOperandsLeftToRight) {
  auto n = IndexVar("n");
  auto f = IndexCall("f", {IndexCall("g", {n})});
  auto h = IndexCall("h", {n});
  auto program = ProgramOf(
      {n}, Return({TupleGetItem::Make(MakeTuple::Make({f, Un(UnaryOp::Neg, h)}), 0)}), {Scalar(DataType::INDEX)});
  EXPECT_VALID_IR(program);
  auto out = passes::FlattenCallExpr(program);
  EXPECT_VALID_IR(out);

  auto en = IndexVar("n");
  auto g = IndexCall("g", {en});
  auto t0 = Temp(0, g);
  auto ef = IndexCall("f", {t0});
  auto t1 = Temp(1, ef);
  auto eh = IndexCall("h", {en});
  auto t2 = Temp(2, eh);
  auto expected = ProgramOf({en},
                            Seq({Assign(t0, g), Assign(t1, ef), Assign(t2, eh),
                                 Return({TupleGetItem::Make(MakeTuple::Make({t1, Un(UnaryOp::Neg, t2)}), 0)})}),
                            {Scalar(DataType::INDEX)});
  EXPECT_SAME_IR(out, expected);
  EXPECT_EQ(Printed(out),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    __tmp_v0: pl.Scalar[pl.INDEX] = pl.g(n)\n"
            "    __tmp_v1: pl.Scalar[pl.INDEX] = pl.f(__tmp_v0)\n"
            "    __tmp_v2: pl.Scalar[pl.INDEX] = pl.h(n)\n"
            "    return [__tmp_v1, -__tmp_v2][0]\n");
}

TEST(FlattenCallExprPlugin, RequiresSSAForm) {
  pass::PassManager manager(pass::ParsePipelineString("passes: [FlattenCallExpr]\n", "flatten.yaml"));
  try {
    manager.Run(NestedChainInScope());
    FAIL() << "ran without SSAForm";
  } catch (const Error& e) {
    EXPECT_EQ(e.message(),
              "pass 'FlattenCallExpr' (step 1 of pipeline 'flatten') requires properties that do not hold: SSAForm "
              "(every variable is assigned once; loop state is carried by iter_args): no earlier pass of the pipeline "
              "produces it; no loaded pass produces it either before it, or declare it for the input (the pipeline's "
              "input_properties or PassContext::set_properties)");
  }
}

// An spmd scope's core count is evaluated before the scope: its call goes
// before it; the call nested in the body stays inside.
TEST(FlattenCallExpr, BindsAScopeCoreCountBeforeTheScope) {
  auto build = [](bool flattened) {
    auto n = IndexVar("n");
    auto x = IndexVar("x");
    auto cores = IndexCall("cores", {n});
    auto inner = IndexCall("g", {n});
    std::vector<StmtPtr> body;
    std::vector<StmtPtr> scope_body;
    ExprPtr core_num = cores;
    ExprPtr arg = inner;
    if (flattened) {
      auto t1 = Temp(1, cores);
      body.push_back(Assign(t1, cores));
      core_num = t1;
      auto t0 = Temp(0, inner);
      scope_body.push_back(Assign(t0, inner));
      arg = t0;
    }
    scope_body.push_back(Assign(x, IndexCall("f", {arg})));
    auto scope = std::make_shared<ScopeStmt>();
    scope->scope_kind = ScopeKind::Spmd;
    scope->body = Seq(scope_body);
    scope->core_num = core_num;
    body.push_back(scope);
    body.push_back(Return({x}));
    return ProgramOf({n}, Seq(body), {Scalar(DataType::INDEX)});
  };
  auto program = build(false);
  EXPECT_VALID_IR(program);
  auto out = passes::FlattenCallExpr(program);
  EXPECT_VALID_IR(out);
  EXPECT_SAME_IR(out, build(true));
  EXPECT_EQ(Printed(out),
            "@pl.function\n"
            "def main(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    __tmp_v1: pl.Scalar[pl.INDEX] = pl.cores(n)\n"
            "    with pl.spmd(__tmp_v1):\n"
            "        __tmp_v0: pl.Scalar[pl.INDEX] = pl.g(n)\n"
            "        x: pl.Scalar[pl.INDEX] = pl.f(__tmp_v0)\n"
            "    return x\n");
}

TEST(FlattenCallExpr, IsIdempotentAndLeavesTopLevelCallsAlone) {
  auto once = passes::FlattenCallExpr(NestedChainInScope());
  EXPECT_EQ(passes::FlattenCallExpr(once), once);

  auto n = IndexVar("n");
  auto x = IndexVar("x");
  auto flat = ProgramOf({n}, Seq({Assign(x, IndexCall("f", {n})), Eval(CallOp("sink", {x})), Return({x})}),
                        {Scalar(DataType::INDEX)});
  EXPECT_EQ(passes::FlattenCallExpr(flat), flat);
}

TEST(FlattenCallExpr, TemporariesSkipNamesTheFunctionUses) {
  auto taken = IndexVar("__tmp_v0");
  auto program = ProgramOf({taken}, Return({IndexCall("f", {taken})}), {Scalar(DataType::INDEX)});
  auto out = passes::FlattenCallExpr(program);
  EXPECT_EQ(Printed(out),
            "@pl.function\n"
            "def main(self, __tmp_v0: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n"
            "    __tmp_v1: pl.Scalar[pl.INDEX] = pl.f(__tmp_v0)\n"
            "    return __tmp_v1\n");
}

// Every call in the program whose op is a tensor op.
class TensorOpFinder : public IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::vector<std::string> found;
  void Visit_(const Ref<Call>& call) override {
    if (call->op->name.rfind("tensor.", 0) == 0) found.push_back(call->op->name);
    IRVisitor::Visit_(call);
  }
};

// ConvertTensorToTileOps converts calls bound to variables only; after
// FlattenCallExpr the nested chain is made of such calls and no tensor op
// survives the lowering.
TEST(FlattenCallExprPlugin, LetsConvertTensorToTileOpsLowerANestedChain) {
  EXPECT_EQ(pass::PassRegistry::Global().Create("FlattenCallExpr")->name(), "FlattenCallExpr");
  auto a = TensorVar("a", {16, 64});
  auto b = TensorVar("b", {16, 64});
  auto o = TensorVar("out", {16, 64});
  auto out_1 = TensorVar("out_1", {16, 64});
  auto nested = Op("tensor.assemble", {o, Op("tensor.exp", {Op("tensor.add", {a, b})}), Tuple({0, 0})});
  auto kernel = Function::Make("kernel", FunctionType::InCore, {a, b, o},
                               {ParamDirection::In, ParamDirection::In, ParamDirection::Out}, {o->type},
                               Seq({Assign(out_1, nested), Return({out_1})}));
  auto program = Program::Make("test", {kernel});

  pass::PassManager manager(pass::ParsePipelineString(
      "name: lower\n"
      "input_properties: [SSAForm]\n"
      "passes: [FlattenCallExpr, ConvertTensorToTileOps]\n",
      "lower.yaml"));
  pass::PassContext ctx;
  ctx.set_verify(true);
  ctx.set_platform(backend::Platform::Get("a5sim"));
  auto result = manager.Run(program, ctx);
  EXPECT_TRUE(ctx.properties().Has(pass::IRProperty::NoNestedCalls));
  TensorOpFinder finder;
  finder.VisitProgram(result);
  EXPECT_EQ(finder.found, std::vector<std::string>{});
  EXPECT_EQ(Printed(result),
            "@pl.function(type=pl.FunctionType.InCore)\n"
            "def kernel(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], out: "
            "pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n"
            "    a_tile: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(a, [0, 0], [16, 64])\n"
            "    b_tile: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(b, [0, 0], [16, 64])\n"
            "    __tmp_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(a_tile, b_tile)\n"
            "    __tmp_v1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(__tmp_v0)\n"
            "    out_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(__tmp_v1, [0, 0], out)\n"
            "    return out_1\n");
}

}  // namespace
}  // namespace pypto::test
