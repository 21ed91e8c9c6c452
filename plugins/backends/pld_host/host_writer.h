// The pld_host backend: each lowered @pl.jit.host orchestrator of a program -> one Python function
// `<name>(rt, *params)` in orchestration/<name>.py, which runs the orchestrator on one rank through `rt`
// (pypto.runtime.host_run.HostRun): it opens the comm domains, allocates the window buffers and makes
// their views, and dispatches chip programs and the per-device parts of host collectives. The program
// must have been through the host pipeline (MaterializeCommDomainScopes, LowerHostTensorCollectives).
#pragma once

#include <string>
#include <vector>

#include "pypto/backend/backend.h"

namespace pypto::pld_host {

inline constexpr const char* kBackendName = "pld_host";

class PldHostBackend : public backend::Backend {
 public:
  static constexpr const char* kDescription =
      "@pl.jit.host orchestrators -> Python functions over the distributed runtime (orchestration/<f>.py)";

  std::string name() const override { return kBackendName; }
  std::string description() const override { return kDescription; }
  // Host orchestrators are Opaque functions of level HOST and role Orchestrator; other Opaque
  // functions are skipped.
  std::vector<ir::FunctionType> function_types() const override { return {ir::FunctionType::Opaque}; }
  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override;
};

// The Python source of one host orchestrator; a CodegenError for what it cannot translate.
std::string WriteHostFunction(const ir::FunctionPtr& function);

}  // namespace pypto::pld_host
