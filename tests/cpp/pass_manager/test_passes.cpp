#include "test_passes.h"

#include <chrono>
#include <mutex>
#include <thread>

#include "pypto/pass/registry.h"
#include "pypto/support/error.h"

namespace pypto::testing {
namespace {

using pass::IRProperty;
using pass::PassContext;
using pass::PassOptionSpec;
using pass::PropertySet;

pass::PassOptions& MutableLastOptions() {
  static pass::PassOptions options;
  return options;
}

class AppendPass : public pass::Pass {
 public:
  std::string name() const override { return "TestAppend"; }
  std::vector<PassOptionSpec> option_specs() const override {
    return {{PassOptionSpec::Kind::kString, "suffix", std::string("_a"), "text to append"},
            {PassOptionSpec::Kind::kInt, "count", int64_t{1}, "how often"},
            {PassOptionSpec::Kind::kFloat, "scale", 1.0, ""},
            {PassOptionSpec::Kind::kBool, "loud", false, ""}};
  }
  void Configure(const pass::PassOptions& options) override {
    MutableLastOptions() = options;
    suffix_ = *options.Get<std::string>("suffix");
    count_ = *options.Get<int64_t>("count");
  }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, PassContext& /*ctx*/) override {
    std::string name = program->name;
    for (int64_t i = 0; i < count_; ++i) name += suffix_;
    return ir::Program::Make(name, program->functions, program->span);
  }

 private:
  std::string suffix_;
  int64_t count_ = 0;
};

using RunFn = std::function<ir::ProgramPtr(const ir::ProgramPtr&, PassContext&)>;

class LambdaPass : public pass::Pass {
 public:
  LambdaPass(std::string name, PropertySet required, PropertySet produced, PropertySet invalidated, RunFn run)
      : name_(std::move(name)),
        required_(required),
        produced_(produced),
        invalidated_(invalidated),
        run_(std::move(run)) {}

  std::string name() const override { return name_; }
  PropertySet required() const override { return required_; }
  PropertySet produced() const override { return produced_; }
  PropertySet invalidated() const override { return invalidated_; }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, PassContext& ctx) override { return run_(program, ctx); }

 private:
  std::string name_;
  PropertySet required_, produced_, invalidated_;
  RunFn run_;
};

ir::ProgramPtr Identity(const ir::ProgramPtr& p, PassContext&) { return p; }

void AddLambda(const std::string& name, PropertySet required, PropertySet produced, PropertySet invalidated,
               RunFn run = Identity) {
  pass::PassRegistry::Global().Register(name, "test pass", "test_pass_manager", [=] {
    return std::make_unique<LambdaPass>(name, required, produced, invalidated, run);
  });
}

ir::ProgramPtr AddBrokenFunction(const ir::ProgramPtr& program, PassContext&) {
  auto broken = ir::Function::Make("broken", ir::FunctionType::Opaque, {}, {}, {},
                                   ir::MakeSeq({ir::BreakStmt::Make(), ir::ReturnStmt::Make({})}));
  return program->WithFunction(broken);
}

}  // namespace

void RegisterTestPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    pass::PassRegistry::Global().Register("TestAppend", "appends a suffix", "test_pass_manager",
                                          [] { return std::make_unique<AppendPass>(); });
    AddLambda("TestProduceSSA", {}, {IRProperty::SSAForm}, {});
    AddLambda("TestNeedSSA", {IRProperty::SSAForm}, {}, {});
    AddLambda("TestBreakSSA", {}, {}, {IRProperty::SSAForm});
    AddLambda("TestSleep", {}, {}, {}, [](const ir::ProgramPtr& p, PassContext&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      return p;
    });
    AddLambda("TestBreakIR", {}, {}, {}, AddBrokenFunction);
    AddLambda("TestFail", {}, {}, {}, [](const ir::ProgramPtr&, PassContext&) -> ir::ProgramPtr {
      ThrowValueError("tile shape [3, 5] is not a multiple of [16, 16]");
    });
    AddLambda("TestNull", {}, {}, {}, [](const ir::ProgramPtr&, PassContext&) { return ir::ProgramPtr(); });
    AddLambda("TestWarn", {}, {}, {}, [](const ir::ProgramPtr& p, PassContext& ctx) {
      ir::Diagnostic d;
      d.severity = ir::Diagnostic::Severity::kWarning;
      d.rule = "TestWarn";
      d.message = "this is only a hint";
      ctx.Report(d);
      return p;
    });
    AddLambda("TestPerfHint", {}, {}, {}, [](const ir::ProgramPtr& p, PassContext& ctx) {
      ir::Diagnostic d;
      d.severity = ir::Diagnostic::Severity::kPerfHint;
      d.rule = "TestCheck";
      d.code = "PH999";
      d.function = "main";
      d.node = "AssignStmt";
      d.message = "the tile is small";
      d.fix = "make it larger";
      d.span = Span("k.py", 4, 5);
      ctx.Report(d);
      return p;
    });
  });
}

const pass::PassOptions& LastTestAppendOptions() { return MutableLastOptions(); }

ir::ProgramPtr ValidProgram(const std::string& name) {
  auto index = ir::ScalarType::Make(ir::DataType::INDEX);
  auto x = ir::Var::Make("x", index);
  auto main = ir::Function::Make("main", ir::FunctionType::Opaque, {x}, {ir::ParamDirection::In}, {index},
                                 ir::ReturnStmt::Make({x}));
  return ir::Program::Make(name, {main});
}

}  // namespace pypto::testing
