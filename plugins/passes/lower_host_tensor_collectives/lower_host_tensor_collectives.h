// LowerHostTensorCollectives: each collective of a host orchestrator (pld.tensor.allreduce, barrier,
// broadcast, allgather, reduce_scatter, all_to_all on windows) becomes one dispatch of the builtin
// `builtin.<op>` per device of its comm domain: a loop over pld.world_size() for a domain of every rank,
// a sequence of dispatches for a static subset. The collective's result (its window, rebound) becomes an
// alias of that window. Needs the domains MaterializeCommDomainScopes found. See README.md.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class LowerHostTensorCollectivesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "LowerHostTensorCollectives";
  static constexpr const char* kDescription =
      "Turn each host collective into one builtin dispatch per device of its comm domain";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Returns `program` itself when no host orchestrator calls a collective.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

}  // namespace pypto::passes
