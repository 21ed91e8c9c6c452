// MaterializeCommDomainScopes: the comm domain of every window buffer a host orchestrator allocates.
// A buffer's domain is the set of devices its views are dispatched to (a pl.range(pld.world_size())
// loop variable: every rank; pl.range over constants or a constant: those devices), merged over the
// buffers used together in a host collective; buffers with equal device sets share one domain
// `comm_d<n>`. The allocations, views and host collectives get `comm_domain` (and, for a subset of the
// ranks, `comm_devices`) attributes. See README.md for the errors.
#pragma once

#include <string>

#include "pypto/pass/pass.h"

namespace pypto::passes {

class MaterializeCommDomainScopesPass : public pass::Pass {
 public:
  static constexpr const char* kName = "MaterializeCommDomainScopes";
  static constexpr const char* kDescription =
      "Find the comm domain of each host window buffer from the devices its views are dispatched to";

  std::string name() const override { return kName; }
  std::string description() const override { return kDescription; }
  // Returns `program` itself when it allocates no window buffers.
  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& ctx) override;
};

// The attributes this pass sets and LowerHostTensorCollectives and the pld_host backend read.
inline constexpr const char* kCommDomainAttr = "comm_domain";    // "comm_d0"
inline constexpr const char* kCommDevicesAttr = "comm_devices";  // absent: every rank

}  // namespace pypto::passes
