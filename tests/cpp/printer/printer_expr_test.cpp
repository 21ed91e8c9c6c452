// Expressions: precedence, literals, calls and attribute values.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "pypto/ops/registry.h"
#include "pypto/support/error.h"
#include "printer_test_util.h"

namespace pypto::ir {
namespace {

using namespace printer_test;
using B = BinaryOp;
using U = UnaryOp;

// An op whose schema types its kwargs, so they print without kind markers.
PYPTO_REGISTER_OP("printer_test.fill")
    .set_category(ops::OpCategory::kTileOp)
    .add_argument("shape")
    .add_kwarg("value", ops::AttrKind::kExpr)
    .add_kwarg("dims", ops::AttrKind::kExprList)
    .add_kwarg("names", ops::AttrKind::kStringList);

class PrinterExprTest : public ::testing::Test {
 protected:
  VarPtr a = ScalarVar("a");
  VarPtr b = ScalarVar("b");
  VarPtr c = ScalarVar("c");
  VarPtr p = ScalarVar("p", DataType::BOOL);
  VarPtr q = ScalarVar("q", DataType::BOOL);
  VarPtr r = ScalarVar("r", DataType::BOOL);
};

TEST_F(PrinterExprTest, SumInsideProductKeepsParentheses) {
  EXPECT_EQ(Print(Bin(B::Mul, Bin(B::Add, a, b), c)), "(a + b) * c");
  EXPECT_EQ(Print(Bin(B::Add, a, Bin(B::Mul, b, c))), "a + b * c");
  EXPECT_EQ(Print(Bin(B::Mul, a, Bin(B::Add, b, c))), "a * (b + c)");
  EXPECT_EQ(Print(Bin(B::FloatDiv, Bin(B::Sub, a, b), c)), "(a - b) / c");
}

TEST_F(PrinterExprTest, LeftAssociativeOperatorsParenthesizeTheRight) {
  EXPECT_EQ(Print(Bin(B::Sub, a, Bin(B::Sub, b, c))), "a - (b - c)");
  EXPECT_EQ(Print(Bin(B::Sub, Bin(B::Sub, a, b), c)), "a - b - c");
  EXPECT_EQ(Print(Bin(B::FloorDiv, a, Bin(B::Mul, b, c))), "a // (b * c)");
  EXPECT_EQ(Print(Bin(B::Mul, Bin(B::FloorDiv, a, b), c)), "a // b * c");
  EXPECT_EQ(Print(Bin(B::FloorMod, Bin(B::FloorMod, a, b), c)), "a % b % c");
  EXPECT_EQ(Print(Bin(B::Add, a, Bin(B::Add, b, c))), "a + (b + c)");
}

TEST_F(PrinterExprTest, UnaryOperators) {
  EXPECT_EQ(Print(Un(U::Neg, Bin(B::Add, a, b))), "-(a + b)");
  EXPECT_EQ(Print(Bin(B::Add, Un(U::Neg, a), b)), "-a + b");
  EXPECT_EQ(Print(Un(U::Neg, Un(U::Neg, a))), "--a");
  EXPECT_EQ(Print(Un(U::BitNot, Bin(B::Add, a, b))), "~(a + b)");
  EXPECT_EQ(Print(Un(U::BitNot, a)), "~a");
  EXPECT_EQ(Print(Un(U::Abs, Bin(B::Sub, a, b))), "abs(a - b)");
  EXPECT_EQ(Print(Un(U::Not, p)), "not p");
}

TEST_F(PrinterExprTest, PowerBindsRightAndTighterThanUnaryMinus) {
  EXPECT_EQ(Print(Bin(B::Pow, a, Un(U::Neg, b))), "a ** -b");
  EXPECT_EQ(Print(Bin(B::Pow, Bin(B::Pow, a, b), c)), "(a ** b) ** c");
  EXPECT_EQ(Print(Bin(B::Pow, a, Bin(B::Pow, b, c))), "a ** b ** c");
  EXPECT_EQ(Print(Bin(B::Pow, a, Bin(B::Add, b, c))), "a ** (b + c)");
  EXPECT_EQ(Print(Bin(B::Pow, Un(U::Neg, a), b)), "(-a) ** b");
  EXPECT_EQ(Print(Un(U::Neg, Bin(B::Pow, a, b))), "-a ** b");
  EXPECT_EQ(Print(Bin(B::Pow, Int(-3), Int(2))), "(-3) ** 2");
  EXPECT_EQ(Print(Bin(B::Pow, a, Int(-1))), "a ** -1");
}

TEST_F(PrinterExprTest, ComparisonsNeverChain) {
  EXPECT_EQ(Print(Bin(B::Eq, Bin(B::Lt, a, b), p)), "(a < b) == p");
  EXPECT_EQ(Print(Bin(B::Lt, p, Bin(B::Lt, b, c))), "p < (b < c)");
  EXPECT_EQ(Print(Bin(B::Lt, Bin(B::Add, a, Int(1)), b)), "a + 1 < b");
  EXPECT_EQ(Print(Bin(B::Ne, a, b)), "a != b");
  EXPECT_EQ(Print(Bin(B::Le, a, b)), "a <= b");
  EXPECT_EQ(Print(Bin(B::Gt, a, b)), "a > b");
  EXPECT_EQ(Print(Bin(B::Ge, a, b)), "a >= b");
}

TEST_F(PrinterExprTest, AndOrGroupLeftAndParenthesizeEachOther) {
  EXPECT_EQ(Print(Bin(B::And, Bin(B::And, p, q), r)), "p and q and r");
  EXPECT_EQ(Print(Bin(B::And, p, Bin(B::And, q, r))), "p and (q and r)");
  EXPECT_EQ(Print(Bin(B::Or, Bin(B::And, p, q), r)), "(p and q) or r");
  EXPECT_EQ(Print(Bin(B::And, p, Bin(B::Or, q, r))), "p and (q or r)");
  EXPECT_EQ(Print(Bin(B::Or, p, Bin(B::And, q, r))), "p or (q and r)");
  EXPECT_EQ(Print(Un(U::Not, Bin(B::And, p, q))), "not (p and q)");
  EXPECT_EQ(Print(Un(U::Not, Bin(B::Lt, a, b))), "not a < b");
  EXPECT_EQ(Print(Bin(B::Eq, Un(U::Not, p), q)), "(not p) == q");
  EXPECT_EQ(Print(Bin(B::And, Bin(B::Lt, a, b), Bin(B::Gt, b, c))), "a < b and b > c");
  EXPECT_EQ(Print(Bin(B::And, Un(U::Not, p), q)), "not p and q");
}

TEST_F(PrinterExprTest, BitwiseOperators) {
  EXPECT_EQ(Print(Bin(B::BitOr, Bin(B::BitAnd, a, b), c)), "a & b | c");
  EXPECT_EQ(Print(Bin(B::BitAnd, a, Bin(B::BitOr, b, c))), "a & (b | c)");
  EXPECT_EQ(Print(Bin(B::BitXor, a, Bin(B::BitAnd, b, c))), "a ^ b & c");
  EXPECT_EQ(Print(Bin(B::BitAnd, Bin(B::BitXor, a, b), c)), "(a ^ b) & c");
  EXPECT_EQ(Print(Bin(B::BitShiftLeft, a, Bin(B::Add, b, Int(1)))), "a << b + 1");
  EXPECT_EQ(Print(Bin(B::BitAnd, Bin(B::BitShiftRight, a, b), c)), "a >> b & c");
  EXPECT_EQ(Print(Bin(B::BitShiftRight, Bin(B::BitOr, a, b), c)), "(a | b) >> c");
}

TEST_F(PrinterExprTest, FunctionStyleOperators) {
  EXPECT_EQ(Print(Bin(B::Min, a, Bin(B::Add, b, c))), "pl.min(a, b + c)");
  EXPECT_EQ(Print(Bin(B::Max, a, b)), "pl.max(a, b)");
  EXPECT_EQ(Print(Bin(B::Xor, p, q)), "pl.xor(p, q)");
  EXPECT_EQ(Print(Bin(B::Mul, Bin(B::Min, a, b), c)), "pl.min(a, b) * c");
  EXPECT_EQ(Print(UnaryExpr::MakeCast(Bin(B::Add, a, b), DataType::INT32)), "pl.cast(a + b, pl.INT32)");
  EXPECT_EQ(Print(Bin(B::Add, UnaryExpr::MakeCast(a, DataType::INT64), Int(1, DataType::INT64))),
            "pl.cast(a, pl.INT64) + pl.const(1, pl.INT64)");
}

TEST_F(PrinterExprTest, IntegerLiterals) {
  EXPECT_EQ(Print(Int(5)), "5");
  EXPECT_EQ(Print(Int(-3)), "-3");
  EXPECT_EQ(Print(Int(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(Print(Int(5, DataType::INT64)), "pl.const(5, pl.INT64)");
  EXPECT_EQ(Print(Int(-7, DataType::INT32)), "pl.const(-7, pl.INT32)");
  EXPECT_EQ(Print(Int(200, DataType::UINT8)), "pl.const(200, pl.UINT8)");
  // A minus written before a literal is part of the literal, so a negation
  // spells its literal operand out.
  EXPECT_EQ(Print(Un(U::Neg, Int(5))), "-pl.const(5, pl.INDEX)");
  EXPECT_EQ(Print(Un(U::Neg, Int(-5))), "-pl.const(-5, pl.INDEX)");
  EXPECT_EQ(Print(Un(U::Neg, Bool(true))), "-pl.const(True, pl.BOOL)");
  EXPECT_EQ(Print(Bin(B::Sub, a, Int(-1))), "a - -1");
}

TEST_F(PrinterExprTest, FloatLiteralsUsePythonRepr) {
  const std::vector<std::pair<double, std::string>> cases = {
      {1.0, "1.0"},
      {1e-05, "1e-05"},
      {0.1, "0.1"},
      {0.0001, "0.0001"},
      {100000.0, "100000.0"},
      {123456.789, "123456.789"},
      {1e15, "1000000000000000.0"},
      {1e16, "1e+16"},
      {1.5e-07, "1.5e-07"},
      {-2.5, "-2.5"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {5e-324, "5e-324"},
      {std::numeric_limits<double>::infinity(), "float(\"inf\")"},
      {-std::numeric_limits<double>::infinity(), "float(\"-inf\")"},
      {std::numeric_limits<double>::quiet_NaN(), "float(\"nan\")"},
  };
  for (const auto& [value, expected] : cases) EXPECT_EQ(Print(Float(value)), expected) << value;
  EXPECT_EQ(Print(Float(0.5, DataType::FP16)), "pl.const(0.5, pl.FP16)");
  EXPECT_EQ(Print(Float(-std::numeric_limits<double>::infinity(), DataType::BF16)),
            "pl.const(float(\"-inf\"), pl.BF16)");
  EXPECT_EQ(Print(Un(U::Neg, Float(1.0))), "-pl.const(1.0, pl.FP32)");
  EXPECT_EQ(Print(Bin(B::Pow, Float(-2.0), Float(0.5))), "(-2.0) ** 0.5");
  EXPECT_EQ(Print(Bin(B::Mul, Float(2.0), Float(std::numeric_limits<double>::infinity()))), "2.0 * float(\"inf\")");
}

TEST_F(PrinterExprTest, FloatLiteralsReadBackExactly) {
  std::vector<double> values;
  for (int exponent = -320; exponent <= 308; exponent += 7) {
    const double base = std::pow(10.0, exponent);
    values.insert(values.end(), {base, base / 3.0, -base * 7.0 / 9.0, std::nextafter(base, 0.0)});
  }
  for (double value : values) {
    if (!std::isfinite(value) || value == 0.0) continue;
    const std::string text = Print(Float(value));
    EXPECT_TRUE(text.find_first_of(".e") != std::string::npos) << text;
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), value) << text;
  }
}

TEST_F(PrinterExprTest, BoolLiterals) {
  EXPECT_EQ(Print(Bool(true)), "True");
  EXPECT_EQ(Print(Bin(B::And, Bool(false), p)), "False and p");
}

TEST_F(PrinterExprTest, TuplesAreListsAndIndexing) {
  auto tuple_var = Var::Make("t", TupleType::Make({ScalarOf(), ScalarOf(DataType::FP32)}));
  EXPECT_EQ(Print(List({a, b})), "[a, b]");
  EXPECT_EQ(Print(List({})), "[]");
  EXPECT_EQ(Print(TupleGetItem::Make(tuple_var, 1)), "t[1]");
  EXPECT_EQ(Print(TupleGetItem::Make(List({a, b}), 0)), "[a, b][0]");
  EXPECT_EQ(Print(Bin(B::Add, TupleGetItem::Make(tuple_var, 0), a)), "t[0] + a");
}

TEST_F(PrinterExprTest, OpAndFunctionCalls) {
  auto x = Var::Make("x", TensorType::Make({64, 64}, DataType::FP32));
  EXPECT_EQ(Print(OpCall("tile.add", {a, b})), "pl.tile.add(a, b)");
  EXPECT_EQ(Print(OpCall("tile.load", {x, List({Int(0), Int(0)}), List({Int(16), Int(16)})},
                         {{"target_memory", EnumAttr::Of(MemorySpace::Vec)}})),
            "pl.tile.load(x, [0, 0], [16, 16], target_memory=pl.Mem.Vec)");
  EXPECT_EQ(Print(Call::Make(GlobalVar::Make("kernel"), {a, b}, {}, nullptr)), "self.kernel(a, b)");
  EXPECT_EQ(Print(OpCall("tile.add", {a, b}, {}, nullptr, {{"stage", int64_t{1}}, {"tag", std::string("x")}})),
            "pl.tile.add(a, b, attrs={\"stage\": 1, \"tag\": \"x\"})");
  EXPECT_EQ(Print(OpCall("tile.if", {a})), "pl.tile.if_(a)");
  EXPECT_EQ(Print(Op::Get("tile.add")), "pl.tile.add");
  EXPECT_EQ(Print(GlobalVar::Make("kernel")), "self.kernel");
}

TEST_F(PrinterExprTest, KwargValuesOfEveryKindDescribeTheirKind) {
  Attrs kwargs = {
      {"flag", true},
      {"count", int64_t{3}},
      {"scale", 0.5},
      {"whole", 2.0},
      {"label", std::string("k")},
      {"dtype", DataType::FP16},
      {"layout", EnumAttr::Of(TileLayout::RowMajor)},
      {"offsets", std::vector<int64_t>{1, 2}},
      {"names", std::vector<std::string>{"x", "y"}},
      {"value", ExprPtr(Float(0.0))},
      {"bound", ExprPtr(a)},
      {"dims", std::vector<ExprPtr>{a, Int(64)}},
      {"no_ints", std::vector<int64_t>{}},
      {"no_names", std::vector<std::string>{}},
      {"no_exprs", std::vector<ExprPtr>{}},
      {"unknown_enum", EnumAttr{"Foo", 3}},
      {"unknown_value", EnumAttr{"MemorySpace", 42}},
  };
  EXPECT_EQ(Print(OpCall("tile.op", {a}, kwargs)),
            "pl.tile.op(a, flag=True, count=3, scale=0.5, whole=2.0, label=\"k\", dtype=pl.FP16, "
            "layout=pl.TileLayout.row_major, offsets=[1, 2], names=[\"x\", \"y\"], value=pl.const(0.0, pl.FP32), "
            "bound=a, dims=[a, pl.const(64, pl.INDEX)], no_ints=[], no_names=list[str](), no_exprs=list[pl.Expr](), "
            "unknown_enum=pl.Foo(3), unknown_value=pl.Mem(42))");
}

TEST_F(PrinterExprTest, KwargsTheSchemaTypesPrintPlainly) {
  Attrs kwargs = {
      {"value", ExprPtr(Float(0.0))},
      {"dims", std::vector<ExprPtr>{}},
      {"names", std::vector<std::string>{}},
      {"extra", ExprPtr(Int(1))},
  };
  EXPECT_EQ(Print(OpCall("printer_test.fill", {List({Int(16), Int(16)})}, kwargs)),
            "pl.printer_test.fill([16, 16], value=0.0, dims=[], names=[], extra=pl.const(1, pl.INDEX))");
  // Declared with another kind: the value still says what it is.
  EXPECT_EQ(Print(OpCall("printer_test.fill", {a}, {{"value", std::vector<ExprPtr>{Int(2)}}})),
            "pl.printer_test.fill(a, value=[pl.const(2, pl.INDEX)])");
}

TEST_F(PrinterExprTest, KeysThatCannotBeKeywordsAreUnpacked) {
  Attrs kwargs = {
      {"attrs", int64_t{1}}, {"my-key", int64_t{2}}, {"ok", int64_t{4}}, {"if", int64_t{3}}};
  EXPECT_EQ(Print(OpCall("tile.op", {a}, kwargs, nullptr, {{"k", true}})),
            "pl.tile.op(a, ok=4, **{\"attrs\": 1, \"my-key\": 2, \"if\": 3}, attrs={\"k\": True})");
}

TEST_F(PrinterExprTest, StringsUsePythonEscapes) {
  const std::string raw = "q\"b\\n\nt\tc\x07 \xc3\xa9 bad\xff";
  EXPECT_EQ(Print(OpCall("tile.op", {}, {{"tag", raw}})),
            "pl.tile.op(tag=\"q\\\"b\\\\n\\nt\\tc\\x07 \xc3\xa9 bad\\xff\")");
}

TEST_F(PrinterExprTest, SubmitsPrintAsPlSubmitWithDepsOptionsAndCallAttrs) {
  VarPtr t = ScalarVar("t", DataType::TASK_ID);
  auto call =
      Call::Make(GlobalVar::Make("kernel"), {a, b}, {}, nullptr, Span(), {{"no_dep_args", std::vector<ExprPtr>{a}}});
  EXPECT_EQ(Print(Submit::Make(call, {t}, {{"allow_early_resolve", true}})),
            "pl.submit(self.kernel, a, b, deps=[t], allow_early_resolve=True, attrs={\"no_dep_args\": [a]})");
  EXPECT_EQ(Print(Submit::Make(Call::Make(GlobalVar::Make("kernel"), {}, {}, nullptr), {})), "pl.submit(self.kernel)");
}

TEST_F(PrinterExprTest, GridLaunchesPrintAsSpmdSubmitWhenTheirAttrsStartWithCoreNum) {
  Attrs launch{{"core_num", Int(4)}, {"sync_start", false}, {"arg_directions", std::vector<std::string>{"Scalar"}}};
  auto call = Call::Make(GlobalVar::Make("kernel"), {a}, {}, nullptr, Span(), launch);
  EXPECT_EQ(Print(Submit::Make(call, {})),
            "pl.spmd_submit(self.kernel, a, core_num=4, sync_start=False, attrs={\"arg_directions\": [\"Scalar\"]})");
  // core_num elsewhere stays a call attr, so the attr order survives a round trip.
  Attrs late{{"arg_directions", std::vector<std::string>{"Scalar"}}, {"core_num", Int(4)}};
  auto other = Call::Make(GlobalVar::Make("kernel"), {a}, {}, nullptr, Span(), late);
  EXPECT_EQ(Print(Submit::Make(other, {})),
            "pl.submit(self.kernel, a, attrs={\"arg_directions\": [\"Scalar\"], \"core_num\": pl.const(4, pl.INDEX)})");
}

TEST_F(PrinterExprTest, CustomPrefix) {
  PrintOptions options;
  options.prefix = "ir";
  EXPECT_EQ(Print(OpCall("tile.add", {a, Int(1, DataType::INT32)}), options), "ir.tile.add(a, ir.const(1, ir.INT32))");
  EXPECT_EQ(Print(ScalarOf(DataType::INT64), options), "ir.Scalar[ir.INT64]");
}

TEST_F(PrinterExprTest, PrefixMustBeAnIdentifier) {
  for (const std::string prefix : {"a.b", "", "if", "1pl"}) {
    PrintOptions options;
    options.prefix = prefix;
    try {
      PrintNode(a, options);
      ADD_FAILURE() << "prefix '" << prefix << "' was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kValue);
      EXPECT_EQ(e.message(), "PrintOptions.prefix '" + prefix +
                                 "' is not a Python identifier; use a plain module alias such as 'pl'");
    }
  }
}

TEST_F(PrinterExprTest, NullNodesThrowOrPrintNone) {
  EXPECT_EQ(PrintNode(nullptr), "None");
  EXPECT_THROW(PrintProgram(nullptr), Error);
  EXPECT_THROW(PrintFunction(nullptr), Error);
}

}  // namespace
}  // namespace pypto::ir
