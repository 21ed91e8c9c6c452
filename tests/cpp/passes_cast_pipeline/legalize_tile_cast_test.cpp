#include "legalize_tile_cast.h"

#include <gtest/gtest.h>

#include <functional>

#include "cast_chain.h"
#include "pypto/backend/platform.h"
#include "pypto/ir/printer.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

using backend::Platform;
using passes::LegalizeTileCastPass;

ExprPtr Op(const std::string& name, std::vector<ExprPtr> args, Attrs kwargs = {}) {
  return ops::OpRegistry::Global().Create(name, std::move(args), std::move(kwargs), Span("kernel.py", 7, 9));
}
ExprPtr List(std::vector<ExprPtr> values) { return MakeTuple::Make(std::move(values)); }
VarPtr TensorVar(const std::string& name, DataType dtype) { return Var::Make(name, TensorType::Make({16, 64}, dtype)); }
StmtPtr Let(VarPtr& var, const std::string& name, const ExprPtr& value) {
  var = Var::Make(name, value->type);
  return Assign(var, value);
}
ExprPtr Load(const VarPtr& tensor) { return Op("tile.load", {tensor, List(Ints({0, 0})), List(Ints({16, 64}))}); }
ExprPtr Cast(const ExprPtr& tile, DataType to, Attrs extra = {}) {
  Attrs kwargs{{"target_type", to}};
  for (const auto& [key, value] : extra) kwargs.Set(key, value);
  return Op("tile.cast", {tile}, std::move(kwargs));
}

// In and out tensors of the given dtypes around `compute`, which turns the
// loaded tile into the stored one.
ProgramPtr Kernel(DataType in, DataType out_dtype,
                  const std::function<ExprPtr(const VarPtr&, std::vector<StmtPtr>&)>& compute,
                  FunctionType type = FunctionType::InCore) {
  auto x = TensorVar("x", in);
  auto out = TensorVar("out", out_dtype);
  VarPtr t, r;
  std::vector<StmtPtr> body{Let(t, "t", Load(x))};
  ExprPtr result = compute(t, body);
  body.push_back(Let(r, "r", Op("tile.store", {result, List(Ints({0, 0})), out})));
  body.push_back(Return({r}));
  return Program::Make("test", {Function::Make("k", type, {x, out}, {ParamDirection::In, ParamDirection::Out},
                                               {out->type}, Seq(body), Span("kernel.py", 1, 1))});
}

ProgramPtr Legalized(const ProgramPtr& program, const std::string& platform) {
  EXPECT_EQ(AllVerifierErrors(program), "");
  LegalizeTileCastPass pass;
  pass::PassContext ctx;
  ctx.set_platform(Platform::Get(platform));
  ProgramPtr out = pass.Run(program, ctx);
  EXPECT_EQ(AllVerifierErrors(out), "");
  return out;
}

std::string LegalizeError(const ProgramPtr& program, const std::string& platform) {
  LegalizeTileCastPass pass;
  pass::PassContext ctx;
  ctx.set_platform(Platform::Get(platform));
  try {
    pass.Run(program, ctx);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kValue);
    EXPECT_EQ(e.span().begin_line, 7);
    return e.message();
  }
  ADD_FAILURE() << "LegalizeTileCast accepted the program";
  return "";
}

TEST(LegalizeTileCast, DescribesItself) {
  LegalizeTileCastPass pass;
  EXPECT_EQ(pass.name(), "LegalizeTileCast");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::TileCastsLegalized));
}

TEST(LegalizeTileCast, SplitsACastIntoNamedHopsAndKeepsTheRoundingMode) {
  auto program = Kernel(DataType::BF16, DataType::FP16, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr h;
    body.push_back(Let(h, "h", Cast(t, DataType::FP16, {{"mode", int64_t{5}}})));
    return h;
  });
  const std::string out = PrintFunction(Legalized(program, "a2a3")->functions[0]);
  EXPECT_NE(
      out.find("    h_fp32: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.FP32, mode=5)\n"
               "    h: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.cast(h_fp32, target_type=pl.FP16, mode=5)\n"),
      std::string::npos)
      << out;
  // a5 converts BF16 to FP16 in one instruction: nothing changes.
  EXPECT_EQ(Legalized(program, "a5"), program);
}

// The (from, to) pair of every tile.cast in a program, in visiting order.
class CastCollector : public IRVisitor {
 public:
  std::vector<std::pair<DataType, DataType>> casts;
  void Visit_(const Ref<Call>& call) override {
    if (!call->is_function_call() && call->op->name == "tile.cast") {
      casts.emplace_back(As<TileType>(call->args[0]->type)->dtype, *call->kwargs.Get<DataType>("target_type"));
    }
    IRVisitor::Visit_(call);
  }
};

// Every pair of dtypes both platforms compute on: afterwards each cast left
// is native, the hops lead from the source dtype to the target, and there
// are as many as the plan has; a pair without a chain is an error.
TEST(LegalizeTileCast, LeavesOnlyNativeCastsForEveryPairOfDtypes) {
  for (const char* name : {"a2a3", "a5"}) {
    const Platform& platform = Platform::Get(name);
    for (DataType from : platform.dtypes) {
      for (DataType to : platform.dtypes) {
        if (from.is_bool() || to.is_bool()) continue;  // tile.cast converts numbers only
        SCOPED_TRACE(std::string(name) + " " + from.name() + " -> " + to.name());
        auto program = Kernel(from, to, [to](const VarPtr& t, std::vector<StmtPtr>& body) {
          VarPtr c;
          body.push_back(Let(c, "c", Cast(t, to)));
          return c;
        });
        auto plan = passes::PlanCast(platform, from, to);
        if (!plan) {
          EXPECT_NE(LegalizeError(program, name).find("no chain of its native casts"), std::string::npos);
          continue;
        }
        CastCollector collector;
        collector.VisitProgram(Legalized(program, name));
        ASSERT_EQ(collector.casts.size(), plan->chain.size() + plan->after_wrap.size());
        DataType current = from;
        for (const auto& [source, target] : collector.casts) {
          EXPECT_EQ(source, current);
          EXPECT_TRUE(platform.SupportsCast(source, target));
          current = target;
        }
        EXPECT_EQ(current, to);
      }
    }
  }
}

// a2a3 chains INT32 -> INT8 through FP16, which saturates: the value wraps
// in INT32 first, the sign bit of INT8 shifted into INT32's and back.
TEST(LegalizeTileCast, WrapsAnIntegerNarrowingBeforeItsChain) {
  auto program = Kernel(DataType::INT32, DataType::INT8, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr n;
    body.push_back(Let(n, "n", Cast(t, DataType::INT8, {{"mode", int64_t{1}}})));
    return n;
  });
  const std::string out = PrintFunction(Legalized(program, "a2a3")->functions[0]);
  EXPECT_NE(out.find("    n_shl: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.shls(t, 24)\n"
                     "    n_wrapped: pl.Tile[[16, 64], pl.INT32, pl.Mem.Vec] = pl.tile.shrs(n_shl, 24)\n"
                     "    n_wrapped_fp16: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec] = "
                     "pl.tile.cast(n_wrapped, target_type=pl.FP16, mode=1)\n"
                     "    n: pl.Tile[[16, 64], pl.INT8, pl.Mem.Vec] = "
                     "pl.tile.cast(n_wrapped_fp16, target_type=pl.INT8, mode=1)\n"),
            std::string::npos)
      << out;
}

// An unsigned target keeps its low bits with an AND; nested, the steps nest.
TEST(LegalizeTileCast, WrapsANestedNarrowingWithAMask) {
  auto program = Kernel(DataType::INT16, DataType::UINT8, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr m;
    body.push_back(Let(m, "m", Op("tile.maximum", {Cast(t, DataType::UINT8), Cast(t, DataType::UINT8)})));
    return m;
  });
  const std::string out = PrintFunction(Legalized(program, "a2a3")->functions[0]);
  EXPECT_NE(out.find("pl.tile.cast(pl.tile.cast(pl.tile.ands(t, 255), target_type=pl.FP16), target_type=pl.UINT8)"),
            std::string::npos)
      << out;
}

TEST(LegalizeTileCast, RemovesIdentityCastsAndUsesTheSource) {
  auto program = Kernel(DataType::FP32, DataType::FP32, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr same, e;
    body.push_back(Let(same, "same", Cast(t, DataType::FP32)));
    body.push_back(Let(e, "e", Op("tile.exp", {same})));
    return e;
  });
  auto x = program->functions[0]->params[0];
  auto out = program->functions[0]->params[1];
  VarPtr t, e, r;
  auto expected_body = Seq({Let(t, "t", Load(x)), Let(e, "e", Op("tile.exp", {t})),
                            Let(r, "r", Op("tile.store", {e, List(Ints({0, 0})), out})), Return({r})});
  auto expected =
      Program::Make("test", {Function::Make("k", FunctionType::InCore, {x, out},
                                            {ParamDirection::In, ParamDirection::Out}, {out->type}, expected_body)});
  EXPECT_SAME_IR(Legalized(program, "a2a3"), expected);
}

// Without FlattenCallExpr a cast can sit inside another call; its hops nest.
TEST(LegalizeTileCast, NestsTheHopsOfANestedCast) {
  auto program = Kernel(DataType::INT8, DataType::FP32, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr e;
    body.push_back(Let(e, "e", Op("tile.exp", {Cast(t, DataType::FP32)})));
    return e;
  });
  const std::string out = PrintFunction(Legalized(program, "a5")->functions[0]);
  EXPECT_NE(out.find("pl.tile.exp(pl.tile.cast(pl.tile.cast(t, target_type=pl.FP16), target_type=pl.FP32))"),
            std::string::npos)
      << out;
}

TEST(LegalizeTileCast, LeavesOrchestrationFunctionsAlone) {
  auto program = Kernel(
      DataType::FP16, DataType::BF16,
      [](const VarPtr& t, std::vector<StmtPtr>& body) {
        VarPtr b;
        body.push_back(Let(b, "b", Cast(t, DataType::BF16)));
        return b;
      },
      FunctionType::Orchestration);
  LegalizeTileCastPass pass;
  pass::PassContext ctx;
  ctx.set_platform(Platform::Get("a2a3"));
  EXPECT_EQ(pass.Run(program, ctx), program);
}

TEST(LegalizeTileCast, NamesThePairThePlatformAndTheAlternativesWhenNoChainExists) {
  auto program = Kernel(DataType::FP32, DataType::UINT32, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr u;
    body.push_back(Let(u, "u", Cast(t, DataType::UINT32)));
    return u;
  });
  const std::string message = LegalizeError(program, "a2a3sim");
  for (const char* part :
       {"in function 'k'", "tile.cast that defines 'u' (line 7)", "converts FP32 to UINT32",
        "platform 'a2a3sim' (platforms/a2a3.yaml)", "FP32 casts directly to FP16, BF16, INT32, INT64, INT16",
        "through chains of native casts to INT8, UINT8"}) {
    EXPECT_NE(message.find(part), std::string::npos) << part << "\n" << message;
  }
}

TEST(LegalizeTileCast, NamesTheDtypeThePlatformLacksAndWhereItExists) {
  auto program = Kernel(DataType::FP32, DataType::FP8E5M2, [](const VarPtr& t, std::vector<StmtPtr>& body) {
    VarPtr e;
    body.push_back(Let(e, "e", Cast(t, DataType::FP8E5M2)));
    return e;
  });
  const std::string message = LegalizeError(program, "a2a3");
  EXPECT_NE(message.find("does not compute on FP8E5M2"), std::string::npos) << message;
  EXPECT_NE(message.find("(a5, a5sim)"), std::string::npos) << message;
  EXPECT_EQ(Legalized(program, "a5"), program);
}

}  // namespace
}  // namespace pypto::test
