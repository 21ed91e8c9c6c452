#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "plugin/error_matchers.h"
#include "pypto/ir/printer.h"
#include "pypto/pass/manager.h"
#include "test_passes.h"

namespace fs = std::filesystem;
using pypto::Error;
using pypto::ErrorKind;
using pypto::pass::ParsePipelineString;
using pypto::pass::PassContext;
using pypto::pass::PassManager;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
using pypto::testing::ValidProgram;

namespace {

class InstrumentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pypto::testing::RegisterTestPasses();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("pypto_instruments_" + std::to_string(getpid())) / info->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static PassManager Make(const std::string& yaml) { return PassManager(ParsePipelineString(yaml, "p.yaml")); }

  static std::string Read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path dir_;
};

TEST_F(InstrumentTest, DumpsThePrintedProgramAfterEveryPass) {
  PassContext ctx;
  ctx.set_dump_dir(dir_);
  auto input = ValidProgram("p");
  auto output = Make("passes:\n  - TestAppend\n  - TestProduceSSA\n  - TestAppend\n").Run(input, ctx);
  fs::path dumps = dir_ / "passes_dump";
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dumps)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"00_input.py", "01_TestAppend.py", "02_TestProduceSSA.py",
                                             "03_TestAppend.py"}));
  EXPECT_EQ(Read(dumps / "00_input.py"), pypto::ir::PrintProgram(input));
  EXPECT_EQ(Read(dumps / "01_TestAppend.py"), pypto::ir::PrintProgram(ValidProgram("p_a")));
  EXPECT_EQ(Read(dumps / "03_TestAppend.py"), pypto::ir::PrintProgram(output));
  EXPECT_NE(Read(dumps / "00_input.py"), Read(dumps / "03_TestAppend.py"));
}

TEST_F(InstrumentTest, DumpReplacesAnEarlierRunButKeepsOtherFiles) {
  fs::path dumps = dir_ / "passes_dump";
  fs::create_directories(dumps);
  std::ofstream(dumps / "07_Stale.py") << "old";
  std::ofstream(dumps / "notes.txt") << "mine";
  auto dump = std::make_shared<pypto::pass::DumpInstrument>(dir_);
  PassContext ctx;
  ctx.AddInstrument(dump);
  Make("passes:\n  - TestAppend\n").Run(ValidProgram(), ctx);
  EXPECT_FALSE(fs::exists(dumps / "07_Stale.py"));
  EXPECT_TRUE(fs::exists(dumps / "notes.txt"));
  EXPECT_EQ(dump->files(), (std::vector<fs::path>{dumps / "00_input.py", dumps / "01_TestAppend.py"}));
}

TEST_F(InstrumentTest, DumpIntoAnUnwritablePlaceIsAnIOError) {
  std::ofstream(dir_ / "file") << "x";
  PassContext ctx;
  ctx.set_dump_dir(dir_ / "file");
  auto manager = Make("passes:\n  - TestAppend\n");
  Error e = ErrorFrom([&] { manager.Run(ValidProgram(), ctx); });
  EXPECT_EQ(e.kind(), ErrorKind::kIO);
  EXPECT_TRUE(Contains(e.message(), "cannot create the IR dump folder '" + (dir_ / "file" / "passes_dump").string()));
}

TEST_F(InstrumentTest, TimingMeasuresEveryPass) {
  auto timing = std::make_shared<pypto::pass::TimingInstrument>();
  PassContext ctx;
  ctx.AddInstrument(timing);
  Make("passes:\n  - TestSleep\n  - TestAppend\n").Run(ValidProgram(), ctx);
  const auto& entries = timing->entries();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].position, 1u);
  EXPECT_EQ(entries[0].pass, "TestSleep");
  EXPECT_GE(entries[0].milliseconds, 20.0);
  EXPECT_EQ(entries[1].pass, "TestAppend");
  EXPECT_LT(entries[1].milliseconds, entries[0].milliseconds);
  EXPECT_DOUBLE_EQ(timing->total_milliseconds(), entries[0].milliseconds + entries[1].milliseconds);

  std::string report = timing->Report();
  EXPECT_TRUE(Contains(report, "Pass timing: 2 passes, "));
  EXPECT_TRUE(Contains(report, "\n   1  TestSleep   "));
  EXPECT_TRUE(Contains(report, "\n   2  TestAppend  "));

  auto json = nlohmann::json::parse(timing->ToJson());
  ASSERT_EQ(json["passes"].size(), 2u);
  EXPECT_EQ(json["passes"][0]["pass"], "TestSleep");
  EXPECT_EQ(json["passes"][0]["position"], 1);
  EXPECT_EQ(json["passes"][1]["pass"], "TestAppend");
  EXPECT_DOUBLE_EQ(json["passes"][0]["ms"].get<double>(), entries[0].milliseconds);
  EXPECT_DOUBLE_EQ(json["total_ms"].get<double>(), timing->total_milliseconds());
}

TEST_F(InstrumentTest, TimingKeepsOnlyTheLastRun) {
  auto timing = std::make_shared<pypto::pass::TimingInstrument>();
  PassContext ctx;
  ctx.AddInstrument(timing);
  auto manager = Make("passes:\n  - TestAppend\n");
  manager.Run(ValidProgram(), ctx);
  manager.Run(ValidProgram(), ctx);
  EXPECT_EQ(timing->entries().size(), 1u);
}

TEST_F(InstrumentTest, DiagnosticsCollectsWhatPassesReportInOrder) {
  auto collected = std::make_shared<pypto::pass::DiagnosticsInstrument>();
  PassContext ctx;
  ctx.AddInstrument(collected);
  Make("passes:\n  - TestWarn\n  - TestPerfHint\n  - TestWarn\n").Run(ValidProgram(), ctx);
  ASSERT_EQ(collected->diagnostics().size(), 3u);
  EXPECT_EQ(collected->diagnostics()[0].rule, "TestWarn");
  EXPECT_EQ(collected->diagnostics()[1].code, "PH999");
  using Severity = pypto::ir::Diagnostic::Severity;
  EXPECT_EQ(collected->OfSeverity(Severity::kWarning).size(), 2u);
  ASSERT_EQ(collected->OfSeverity(Severity::kPerfHint).size(), 1u);
  EXPECT_EQ(collected->OfSeverity(Severity::kPerfHint)[0].ToString(),
            "k.py:4:5: perf_hint: [TestCheck/PH999] in function 'main': the tile is small (fix: make it larger) "
            "(AssignStmt)");
}

TEST_F(InstrumentTest, DiagnosticsKeepsOnlyTheLastRun) {
  auto collected = std::make_shared<pypto::pass::DiagnosticsInstrument>();
  PassContext ctx;
  ctx.AddInstrument(collected);
  Make("passes:\n  - TestWarn\n  - TestWarn\n").Run(ValidProgram(), ctx);
  Make("passes:\n  - TestPerfHint\n").Run(ValidProgram(), ctx);
  ASSERT_EQ(collected->diagnostics().size(), 1u);
  EXPECT_EQ(collected->diagnostics()[0].code, "PH999");
  EXPECT_EQ(ctx.diagnostics().size(), 3u);  // the context keeps everything reported to it
}

TEST_F(InstrumentTest, VerificationNamesThePassThatBrokeTheIR) {
  PassContext ctx;
  ctx.set_verify(true);
  Error e = ErrorFrom([&] {
    Make("passes:\n  - TestAppend\n  - TestBreakIR\n  - TestAppend\n").Run(ValidProgram(), ctx);
  });
  EXPECT_EQ(e.kind(), ErrorKind::kVerification);
  EXPECT_TRUE(Contains(e.message(), "pass 'TestBreakIR' (step 2) produced invalid IR: "));
  EXPECT_TRUE(Contains(e.message(), "[BreakContinueCheck/BREAK_OUTSIDE_LOOP] in function 'broken'"));
}

TEST_F(InstrumentTest, VerificationIsOffUnlessAsked) {
  PassContext ctx;
  auto out = Make("passes:\n  - TestBreakIR\n").Run(ValidProgram(), ctx);
  EXPECT_NE(out->Find("broken"), nullptr);
}

TEST_F(InstrumentTest, PipelineFileCanTurnVerificationOn) {
  auto manager = Make("verify: true\npasses:\n  - TestBreakIR\n");
  PassContext ctx;
  Error e = ErrorFrom([&] { manager.Run(ValidProgram(), ctx); });
  EXPECT_EQ(e.kind(), ErrorKind::kVerification);
  EXPECT_TRUE(Contains(e.message(), "pass 'TestBreakIR' (step 1) produced invalid IR"));
  // The context has the last word.
  PassContext quiet;
  quiet.set_verify(false);
  EXPECT_NO_THROW(manager.Run(ValidProgram(), quiet));
}

TEST_F(InstrumentTest, VerificationChecksSSAOnlyWhileSSAFormHolds) {
  // x is assigned twice: not SSA, but otherwise well formed.
  auto index = pypto::ir::ScalarType::Make(pypto::ir::DataType::INDEX);
  auto x = pypto::ir::Var::Make("x", index);
  auto y = pypto::ir::Var::Make("y", index);
  auto body = pypto::ir::MakeSeq({pypto::ir::AssignStmt::Make(y, x), pypto::ir::AssignStmt::Make(y, x),
                                  pypto::ir::ReturnStmt::Make({y})});
  auto main = pypto::ir::Function::Make("main", pypto::ir::FunctionType::Opaque, {x},
                                        {pypto::ir::ParamDirection::In}, {index}, body);
  auto program = pypto::ir::Program::Make("not_ssa", {main});
  PassContext before_ssa;
  before_ssa.set_verify(true);
  EXPECT_NO_THROW(Make("passes:\n  - TestAppend\n").Run(program, before_ssa));

  PassContext in_ssa;
  in_ssa.set_verify(true);
  Error e = ErrorFrom([&] { Make("input_properties: [SSAForm]\npasses:\n  - TestAppend\n").Run(program, in_ssa); });
  EXPECT_EQ(e.kind(), ErrorKind::kVerification);
  EXPECT_TRUE(Contains(e.message(), "the input program is invalid before the first pass: "));
  EXPECT_TRUE(Contains(e.message(), "MULTIPLE_ASSIGNMENT"));
}

TEST_F(InstrumentTest, VerificationRejectsABrokenInput) {
  auto broken = Make("passes:\n  - TestBreakIR\n").Run(ValidProgram());
  PassContext ctx;
  ctx.set_verify(true);
  Error e = ErrorFrom([&] { Make("passes:\n  - TestAppend\n").Run(broken, ctx); });
  EXPECT_EQ(e.kind(), ErrorKind::kVerification);
  EXPECT_TRUE(Contains(e.message(), "the input program is invalid before the first pass: "));
}

}  // namespace
