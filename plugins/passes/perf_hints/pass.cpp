// The Pass face of PerfHints: options, the platform, and reporting to the context.
#include <string>
#include <variant>

#include "perf_hints.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::passes {

namespace {

// An int option of at least `minimum`, or `current` when the pipeline does not set it.
int64_t ReadIntOption(const pass::PassOptions& options, const std::string& name, int64_t minimum, int64_t current,
                      const std::string& meaning) {
  const ir::AttrValue* value = options.Find(name);
  if (value == nullptr) return current;
  const int64_t* number = std::get_if<int64_t>(value);
  if (number == nullptr) {
    throw Error(ErrorKind::kPipeline, std::string(PerfHintsPass::kName) + " option '" + name + "' must be an int, got " +
                                          ir::AttrValueKindName(*value));
  }
  if (*number < minimum) {
    throw Error(ErrorKind::kPipeline, std::string(PerfHintsPass::kName) + " option '" + name + "' must be " +
                                          meaning + ", got " + std::to_string(*number));
  }
  return *number;
}

}  // namespace

std::vector<pass::PassOptionSpec> PerfHintsPass::option_specs() const {
  using Kind = pass::PassOptionSpec::Kind;
  PerfHintOptions defaults;
  return {
      {Kind::kInt, "efficient_transfer_bytes", defaults.efficient_transfer_bytes,
       "innermost bytes per row a load or store should move (PH001); 0 reads the platform's"},
      {Kind::kInt, "min_block_rows", defaults.min_block_rows,
       "a tile moved per loop iteration with fewer rows is small (PH004)"},
      {Kind::kInt, "nearly_full_percent", defaults.nearly_full_percent,
       "a memory space is nearly full from this share of its capacity, in percent (PH004)"},
  };
}

void PerfHintsPass::Configure(const pass::PassOptions& options) {
  options_.efficient_transfer_bytes =
      ReadIntOption(options, "efficient_transfer_bytes", 0, options_.efficient_transfer_bytes,
                    "0 (the platform's) or a positive byte count");
  options_.min_block_rows =
      ReadIntOption(options, "min_block_rows", 1, options_.min_block_rows, "a positive row count");
  options_.nearly_full_percent =
      ReadIntOption(options, "nearly_full_percent", 1, options_.nearly_full_percent, "a percentage from 1 to 100");
  if (options_.nearly_full_percent > 100) {
    throw Error(ErrorKind::kPipeline, std::string(kName) +
                                          " option 'nearly_full_percent' must be a percentage from 1 to 100, got " +
                                          std::to_string(options_.nearly_full_percent));
  }
}

ir::ProgramPtr PerfHintsPass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  bool allocated = ctx.properties().Has(pass::IRProperty::AllocatedMemoryAddr);
  for (auto& hint : FindPerfHints(program, ctx.platform(), options_, allocated)) ctx.Report(std::move(hint));
  return program;
}

}  // namespace pypto::passes
