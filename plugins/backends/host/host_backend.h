// The host backend: each Orchestration function of a lowered program becomes
// orchestration/<f>.ll, an LLVM module the simulator toolchain runs under
// ORC JIT in the process (see README.md).
#pragma once

#include "pypto/backend/backend.h"

namespace pypto::host {

class HostBackend : public backend::Backend {
 public:
  std::string name() const override;
  std::string description() const override;
  std::vector<ir::FunctionType> function_types() const override;
  std::vector<backend::Artifact> Generate(const ir::ProgramPtr& program, backend::BackendContext& ctx) override;
};

}  // namespace pypto::host
