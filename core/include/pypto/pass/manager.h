// The PassManager runs a pipeline: it creates every pass through the
// PassRegistry (loading the plugins that provide them), validates and applies
// each pass's options, then, for every run, checks the properties each pass
// requires, keeps track of what passes produce and invalidate, and calls the
// instruments around every pass.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pypto/ir/function.h"
#include "pypto/pass/context.h"
#include "pypto/pass/pass.h"
#include "pypto/pass/pipeline.h"

namespace pypto::pass {

// The options of one pass checked against its option_specs: unknown names
// and wrong kinds are PipelineErrors at the step's location; an int is
// accepted for a float option; missing options get their defaults.
PassOptions ValidatePassOptions(const Pass& pass, const PipelineStep& step);

class PassManager {
 public:
  explicit PassManager(Pipeline pipeline);
  // LoadPipeline(name_or_path), then as above.
  static PassManager FromPipeline(const std::string& name_or_path);

  const Pipeline& pipeline() const { return pipeline_; }
  std::vector<std::string> pass_names() const { return pipeline_.pass_names(); }

  // Runs every pass in order. Verification (ctx.verify(), else the
  // pipeline's `verify`) and dumping (ctx.dump_dir()) come first among the
  // instruments, then ctx.instruments(). The input's properties are
  // ctx.properties() plus the pipeline's input_properties; afterwards
  // ctx.properties() holds the result's.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, PassContext& ctx);
  ir::ProgramPtr Run(const ir::ProgramPtr& program);

 private:
  void CheckRequired(size_t index, const PropertySet& available) const;

  Pipeline pipeline_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace pypto::pass
