#include <memory>

#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

class TagProgramPass : public pass::Pass {
 public:
  std::string name() const override { return "OotTagProgram"; }
  std::vector<pass::PassOptionSpec> option_specs() const override {
    return {{pass::PassOptionSpec::Kind::kString, "tag", std::string("oot"), "appended to the name after '_'"}};
  }
  void Configure(const pass::PassOptions& options) override { tag_ = *options.Get<std::string>("tag"); }
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) override {
    return ir::Program::Make(program->name + "_" + tag_, program->functions, program->span);
  }

 private:
  std::string tag_;
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddPass("OotTagProgram", "appends a tag to the program's name",
                    [] { return std::make_unique<TagProgramPass>(); });
}

}  // namespace

PYPTO_PLUGIN("oot_pass", "0.1.0", Register)
