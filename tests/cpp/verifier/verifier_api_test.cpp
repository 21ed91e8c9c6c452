// The public entry points: diagnostics as text, Verify over a program, VerifyOrThrow.
#include "pypto/support/error.h"
#include "verifier_test_util.h"

namespace pypto::ir::verifier_test {
namespace {

TEST(Diagnostic, ToStringNamesPlaceRuleFunctionAndNode) {
  Diagnostic d;
  d.rule = "SSAVerify";
  d.code = "MULTIPLE_ASSIGNMENT";
  d.function = "f";
  d.node = "AssignStmt";
  d.message = "'x' is defined more than once";
  d.span = At(3);
  EXPECT_EQ(d.ToString(),
            "test.py:3:5: error: [SSAVerify/MULTIPLE_ASSIGNMENT] in function 'f': 'x' is defined more than once "
            "(AssignStmt)");
  d.severity = Diagnostic::Severity::kWarning;
  d.span = Span();
  EXPECT_EQ(d.ToString(),
            "<unknown>: warning: [SSAVerify/MULTIPLE_ASSIGNMENT] in function 'f': 'x' is defined more than once "
            "(AssignStmt)");
}

// f: x = 1; x = 2; break  -- two errors of two rules
ProgramPtr BrokenProgram() {
  auto x = V("x", IndexT());
  auto body = MakeSeq({AssignStmt::Make(x, Int(1), At(2)), AssignStmt::Make(x, Int(2), At(3)), BreakStmt::Make(At(4))});
  return Program::Make("p", {MakeFn("f", {}, {}, body)});
}

TEST(VerifyOrThrow, ListsEveryError) {
  try {
    VerifyOrThrow(BrokenProgram());
    FAIL() << "expected a VerificationError";
  } catch (const pypto::Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kVerification);
    EXPECT_EQ(e.message(),
              "IR verification of program 'p' failed with 2 error(s):\n"
              "  test.py:3:5: error: [SSAVerify/MULTIPLE_ASSIGNMENT] in function 'f': 'x' is defined more than once "
              "(first by the AssignStmt at test.py:2:5); in SSA form every variable has exactly one definition: "
              "define a new variable here (AssignStmt)\n"
              "  test.py:4:5: error: [BreakContinueCheck/BREAK_OUTSIDE_LOOP] in function 'f': `break` outside of any "
              "loop of function 'f'; break must be inside a pl.range or while loop (BreakStmt)");
  }
}

TEST(VerifyOrThrow, RespectsTheOptions) {
  VerifyOptions options;
  options.ssa = false;
  try {
    VerifyOrThrow(BrokenProgram(), options);
    FAIL() << "expected a VerificationError";
  } catch (const pypto::Error& e) {
    EXPECT_NE(e.message().find("failed with 1 error(s)"), std::string::npos) << e.message();
  }
}

TEST(VerifyOrThrow, AcceptsAValidProgram) {
  auto x = V("x", IndexT());
  auto f = MakeFn("f", {}, {IndexT()}, MakeSeq({AssignStmt::Make(x, Int(1), At(2)), ReturnStmt::Make({x}, At(3))}));
  EXPECT_NO_THROW(VerifyOrThrow(Program::Make("p", {f})));
}

TEST(Verify, ReportsEveryFunctionOfTheProgram) {
  auto b1 = MakeFn("a", {}, {}, BreakStmt::Make(At(2)));
  auto b2 = MakeFn("b", {}, {}, BreakStmt::Make(At(7)));
  auto ds = Verify(Program::Make("p", {b2, b1}));
  ASSERT_EQ(ds.size(), 2u) << Dump(ds);
  EXPECT_EQ(ds[0].function, "a");
  EXPECT_EQ(ds[1].function, "b");
  EXPECT_EQ(ds[1].span, At(7));
}

}  // namespace
}  // namespace pypto::ir::verifier_test
