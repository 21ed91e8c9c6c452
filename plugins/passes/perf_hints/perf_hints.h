// PerfHints: an analysis pass over the lowered kernels that reports
// performance hints (Diagnostic severity kPerfHint) through
// PassContext::Report and returns the program unchanged. See README.md for
// the hint codes and docs/diagnostics.md for the user's view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/verifier.h"
#include "pypto/pass/pass.h"

namespace pypto::passes {

// The thresholds of the checks. Transfer sizes come from the platform unless
// an option overrides them.
struct PerfHintOptions {
  // Innermost bytes per row a load or store should move (PH001); 0 reads the
  // platform's efficient_transfer_bytes.
  int64_t efficient_transfer_bytes = 0;
  // A tile moved per loop iteration with fewer rows than this is small (PH004).
  int64_t min_block_rows = 16;
  // A memory space whose high-water mark reaches this share of its capacity,
  // in percent, is nearly full (PH004).
  int64_t nearly_full_percent = 90;
};

// Every hint for the core kernels of `program`, sorted by source position
// then code, one per code and site. Checks that need buffer addresses (the
// nearly-full space of PH004, the free Mat bytes of PH003) use them only when
// `addresses_allocated` (the AllocatedMemoryAddr property holds).
std::vector<ir::Diagnostic> FindPerfHints(const ir::ProgramPtr& program, const backend::Platform& platform,
                                          const PerfHintOptions& options, bool addresses_allocated);

class PerfHintsPass : public pass::Pass {
 public:
  static constexpr const char* kName = "PerfHints";
  static constexpr const char* kDescription =
      "Report performance hints (PH001-PH004) about the lowered kernels; the program is not changed";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Hints are about tile code: loads, stores and matmuls of the kernels.
  pass::PropertySet required() const override { return {pass::IRProperty::IncoreTileOps}; }
  std::vector<pass::PassOptionSpec> option_specs() const override;
  void Configure(const pass::PassOptions& options) override;
  // Reports every hint to ctx and returns `program` itself.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;

  const PerfHintOptions& options() const { return options_; }

 private:
  PerfHintOptions options_;
};

}  // namespace pypto::passes
