#include <gtest/gtest.h>

#include "plugin/error_matchers.h"
#include "pypto/pass/manager.h"
#include "test_passes.h"

using pypto::Error;
using pypto::ErrorKind;
using pypto::pass::IRProperty;
using pypto::pass::ParsePipelineString;
using pypto::pass::PassContext;
using pypto::pass::PassManager;
using pypto::pass::PropertySet;
using pypto::testing::Contains;
using pypto::testing::ErrorFrom;
using pypto::testing::ValidProgram;

namespace {

class PassManagerTest : public ::testing::Test {
 protected:
  void SetUp() override { pypto::testing::RegisterTestPasses(); }

  static PassManager Make(const std::string& yaml) { return PassManager(ParsePipelineString(yaml, "p.yaml")); }

  static Error BuildError(const std::string& yaml) {
    Error e = ErrorFrom([&] { Make(yaml); });
    EXPECT_EQ(e.span().filename, "p.yaml") << e.what();
    return e;
  }

  static Error RunError(const std::string& yaml, PassContext& ctx) {
    PassManager manager = Make(yaml);
    return ErrorFrom([&] { manager.Run(ValidProgram(), ctx); });
  }
};

TEST_F(PassManagerTest, RunsPassesInOrderWithTheirOptions) {
  PassManager manager = Make(
      "name: p\n"
      "passes:\n"
      "  - TestAppend\n"
      "  - name: TestAppend\n"
      "    options: {suffix: _b, count: 2}\n");
  EXPECT_EQ(manager.pass_names(), (std::vector<std::string>{"TestAppend", "TestAppend"}));
  EXPECT_EQ(manager.Run(ValidProgram("prog"))->name, "prog_a_b_b");
}

TEST_F(PassManagerTest, FillsDefaultsAndWidensIntToFloat) {
  Make("passes:\n  - name: TestAppend\n    options: {scale: 2, loud: true}\n");
  const auto& options = pypto::testing::LastTestAppendOptions();
  ASSERT_EQ(options.size(), 4u);
  EXPECT_EQ(options.entries()[0].first, "suffix");
  EXPECT_EQ(options.Get<std::string>("suffix"), "_a");
  EXPECT_EQ(options.Get<int64_t>("count"), 1);
  EXPECT_EQ(options.Get<double>("scale"), 2.0);
  EXPECT_EQ(options.Get<bool>("loud"), true);
}

TEST_F(PassManagerTest, UnknownPassPointsAtItsEntry) {
  Error e = BuildError("name: p\npasses:\n  - TestAppend\n  - NoSuchPass\n");
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.what(), "p.yaml:4:5: unknown pass 'NoSuchPass'; known passes: "));
  EXPECT_TRUE(Contains(e.message(), "TestAppend"));
}

TEST_F(PassManagerTest, UnknownOptionListsTheOptions) {
  Error e = BuildError("passes:\n  - name: TestAppend\n    options:\n      sufix: _b\n");
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "pass 'TestAppend' has no option 'sufix'; its options are suffix (str), "
                                    "count (int), scale (float), loud (bool)"));
}

TEST_F(PassManagerTest, OptionOfAPassWithoutOptions) {
  Error e = BuildError("passes:\n  - name: TestSleep\n    options: {ms: 3}\n");
  EXPECT_TRUE(Contains(e.message(), "pass 'TestSleep' has no option 'ms'; it takes no options"));
}

TEST_F(PassManagerTest, WrongOptionKindNamesBothKinds) {
  Error e = BuildError("passes:\n  - name: TestAppend\n    options:\n      suffix: _b\n      count: many\n");
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_EQ(e.span(), pypto::Span("p.yaml", 5, 14));
  EXPECT_TRUE(Contains(e.message(), "option 'count' of pass 'TestAppend' expects int, got str 'many' (how often)"));
}

TEST_F(PassManagerTest, BoolIsNotAnInt) {
  Error e = BuildError("passes:\n  - name: TestAppend\n    options: {count: true}\n");
  EXPECT_TRUE(Contains(e.message(), "expects int, got bool true"));
}

TEST_F(PassManagerTest, OptionsBuiltInCodeAreCheckedToo) {
  pypto::pass::Pipeline pipeline;
  pipeline.name = "code";
  pipeline.steps.push_back({"TestAppend", {{"count", std::string("3")}}, {}, {}});
  Error e = ErrorFrom([&] { PassManager manager(pipeline); });
  EXPECT_FALSE(e.span().known());
  EXPECT_TRUE(Contains(e.message(), "option 'count' of pass 'TestAppend' expects int, got str '3'"));
}

TEST_F(PassManagerTest, MissingPropertyNamesTheProducer) {
  PassContext ctx;
  Error e = RunError("name: p\npasses:\n  - TestAppend\n  - TestNeedSSA\n", ctx);
  EXPECT_EQ(e.kind(), ErrorKind::kPipeline);
  EXPECT_EQ(e.span().begin_line, 4);
  EXPECT_TRUE(Contains(e.message(), "pass 'TestNeedSSA' (step 2 of pipeline 'p') requires properties that do not "
                                    "hold: SSAForm (every variable is assigned once; loop state is carried by "
                                    "iter_args): no earlier pass of the pipeline produces it; add one that does "
                                    "(TestProduceSSA) before it, or declare it for the input (the pipeline's "
                                    "input_properties or PassContext::set_properties)"));
}

TEST_F(PassManagerTest, MissingPropertyProducedTooLate) {
  PassContext ctx;
  Error e = RunError("name: p\npasses:\n  - TestNeedSSA\n  - TestProduceSSA\n", ctx);
  EXPECT_TRUE(Contains(e.message(), "SSAForm (every variable is assigned once; loop state is carried by iter_args): "
                                    "'TestProduceSSA' produces it but runs later (step 2); move it before "
                                    "'TestNeedSSA'"));
}

TEST_F(PassManagerTest, MissingPropertyInvalidatedOnTheWay) {
  PassContext ctx;
  Error e = RunError("name: p\npasses:\n  - TestProduceSSA\n  - TestBreakSSA\n  - TestNeedSSA\n", ctx);
  EXPECT_EQ(e.span().begin_line, 5);
  EXPECT_TRUE(Contains(e.message(), "'TestProduceSSA' (step 1) produces it but 'TestBreakSSA' (step 2) invalidates "
                                    "it; run a pass that produces it again after step 2"));
}

TEST_F(PassManagerTest, TracksProducedAndInvalidatedProperties) {
  PassManager manager = Make("passes:\n  - TestProduceSSA\n  - TestNeedSSA\n");
  PassContext ctx;
  ctx.set_properties({IRProperty::TypeChecked});
  manager.Run(ValidProgram(), ctx);
  EXPECT_EQ(ctx.properties(), (PropertySet{IRProperty::TypeChecked, IRProperty::SSAForm}));
  EXPECT_EQ(ctx.properties().ToString(), "SSAForm, TypeChecked");

  PassManager breaking = Make("passes:\n  - TestBreakSSA\n");
  breaking.Run(ValidProgram(), ctx);
  EXPECT_EQ(ctx.properties(), PropertySet{IRProperty::TypeChecked});
}

TEST_F(PassManagerTest, InputPropertiesSatisfyRequirements) {
  PassManager manager = Make("passes:\n  - TestNeedSSA\n");
  PassContext ctx;
  ctx.set_properties({IRProperty::SSAForm});
  EXPECT_NO_THROW(manager.Run(ValidProgram(), ctx));
}

TEST_F(PassManagerTest, PipelineDeclaresInputProperties) {
  PassManager manager = Make("input_properties: [SSAForm]\npasses:\n  - TestNeedSSA\n");
  PassContext ctx;
  ctx.set_properties({IRProperty::TypeChecked});
  manager.Run(ValidProgram(), ctx);
  EXPECT_EQ(ctx.properties(), (PropertySet{IRProperty::SSAForm, IRProperty::TypeChecked}));
}

TEST_F(PassManagerTest, PassErrorsNameThePassAndStep) {
  PassContext ctx;
  Error e = RunError("name: p\npasses:\n  - TestAppend\n  - TestFail\n", ctx);
  EXPECT_EQ(e.kind(), ErrorKind::kValue);
  EXPECT_EQ(e.message(),
            "in pass 'TestFail' (step 2 of pipeline 'p'): tile shape [3, 5] is not a multiple of [16, 16]");
}

TEST_F(PassManagerTest, PassReturningNothingIsAnError) {
  PassContext ctx;
  Error e = RunError("passes:\n  - TestNull\n", ctx);
  EXPECT_EQ(e.kind(), ErrorKind::kPlugin);
  EXPECT_TRUE(Contains(e.message(), "pass 'TestNull' (step 1) returned no program"));
}

TEST_F(PassManagerTest, PassesReportDiagnostics) {
  PassContext ctx;
  Make("passes:\n  - TestWarn\n  - TestWarn\n").Run(ValidProgram(), ctx);
  ASSERT_EQ(ctx.diagnostics().size(), 2u);
  EXPECT_EQ(ctx.diagnostics()[0].message, "this is only a hint");
  EXPECT_EQ(ctx.diagnostics()[0].severity, pypto::ir::Diagnostic::Severity::kWarning);
}

class RecordingInstrument : public pypto::pass::PassInstrument {
 public:
  std::string name() const override { return "Recording"; }
  void RunBeforePipeline(const pypto::ir::ProgramPtr& p, PassContext&) override { log.push_back("start " + p->name); }
  void RunBeforePass(const pypto::pass::Pass& pass, size_t position, const pypto::ir::ProgramPtr& p,
                     PassContext&) override {
    log.push_back("before " + std::to_string(position) + " " + pass.name() + " " + p->name);
  }
  void RunAfterPass(const pypto::pass::Pass& pass, size_t position, const pypto::ir::ProgramPtr& p,
                    PassContext&) override {
    log.push_back("after " + std::to_string(position) + " " + pass.name() + " " + p->name);
  }
  void RunAfterPipeline(const pypto::ir::ProgramPtr& p, PassContext&) override { log.push_back("end " + p->name); }
  std::vector<std::string> log;
};

TEST_F(PassManagerTest, InstrumentsSeeEveryPass) {
  auto recorder = std::make_shared<RecordingInstrument>();
  PassContext ctx;
  ctx.AddInstrument(recorder);
  Make("passes:\n  - TestAppend\n  - TestProduceSSA\n").Run(ValidProgram("p"), ctx);
  EXPECT_EQ(recorder->log, (std::vector<std::string>{"start p", "before 1 TestAppend p", "after 1 TestAppend p_a",
                                                     "before 2 TestProduceSSA p_a", "after 2 TestProduceSSA p_a",
                                                     "end p_a"}));
}

TEST(PassProperties, NamesAndDescriptions) {
  EXPECT_STREQ(pypto::pass::IRPropertyName(IRProperty::NoUnrollLoops), "NoUnrollLoops");
  EXPECT_STREQ(pypto::pass::IRPropertyDescription(IRProperty::NoUnrollLoops), "pl.unroll loops have been expanded");
  PropertySet set{IRProperty::HasMemRefs, IRProperty::SSAForm};
  EXPECT_EQ(set.ToVector(), (std::vector<IRProperty>{IRProperty::SSAForm, IRProperty::HasMemRefs}));
  EXPECT_EQ(PropertySet().ToString(), "");
  EXPECT_STREQ(pypto::pass::PassOptionKindName(pypto::pass::PassOptionSpec::Kind::kFloat), "float");
}

}  // namespace
